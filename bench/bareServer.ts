import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

/**
 * The baseline: a bare node:http server answering pre-built JSON pages, no routing, auth or
 * logging. Serves `?page=N` from the JSON array of page bodies in argv[2]; prints its port.
 */
const pages = JSON.parse(readFileSync(process.argv[2], 'utf8')) as string[];
const buffers = pages.map((page) => Buffer.from(page));
const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
	const page = Number(/[?&]page=(\d+)/.exec(req.url ?? '')?.[1] ?? 1);
	const body = buffers[page - 1] ?? Buffer.from('[]');
	res.writeHead(200, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': body.length,
	});
	res.end(body);
});
server.listen(0, '127.0.0.1', () => {
	const address = server.address();
	console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
