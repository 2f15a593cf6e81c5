import { readFileSync } from 'node:fs';

import { README, readmeWithTable } from '../../scripts/readme';

describe("README's operations table", () => {
	it('is the one the operation modules give (npm run readme writes it)', () => {
		const readme = readFileSync(README, 'utf8');
		expect(readme).toEqual(readmeWithTable(readme));
	});
});
