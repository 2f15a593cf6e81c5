const path = require('path');
const { task, src, dest } = require('gulp');

// tsc emits only .js; n8n loads node and credential icons, and the output schemas the editor
// previews (__schema__), from dist next to them.
task('build:icons', () =>
	src(['nodes/**/*.{png,svg}', 'nodes/**/__schema__/**/*.json', 'credentials/**/*.{png,svg}'], {
		encoding: false,
		allowEmpty: true,
	}).pipe(dest((file) => path.resolve('dist', path.relative(process.cwd(), file.base)))),
);
