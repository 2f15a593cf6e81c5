/** Deterministic PRNG (mulberry32) so one seed always yields the same catalog. */
export class Random {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0 || 1;
	}

	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	pick<T>(items: readonly T[]): T {
		return items[Math.floor(this.next() * items.length)];
	}

	chance(probability: number): boolean {
		return this.next() < probability;
	}

	hex(length: number): string {
		let out = '';
		while (out.length < length) out += Math.floor(this.next() * 16).toString(16);
		return out;
	}

	digits(length: number): string {
		let out = String(this.int(1, 9));
		while (out.length < length) out += String(this.int(0, 9));
		return out;
	}
}
