/**
 * What the examples' sticky notes may hold (test/examples/examples.test.ts checks every note; the
 * e2e suite checks the buttons against the running editor).
 */

/** A few lines, readable when the canvas fits the window; the detail is in docs/usage.md. */
export const NOTE_MAX_CHARACTERS = 700;
export const NOTE_MAX_LINES = 6;

/**
 * Buttons a note may name in bold: the canvas of n8n 2.40.7 and of 1.123.81 both show them (read
 * in their editor bundles; test/e2e/examples.e2e.test.ts finds each in the running editor's texts).
 */
export const CANVAS_BUTTONS = ['Execute workflow'];

/** Button texts of older n8n that neither line shows. */
export const GONE_BUTTONS = ['Test workflow', 'Test step', 'Listen for test event', 'Execute Node'];

/** What a partner would have to type in a shell. */
export const SHELL = new RegExp(
	[
		'\\b(mkdir|chmod|chown|sudo|openssl|uuidgen|curl|npm|npx|docker (exec|run|cp))\\b',
		// a prompt, or a command line chained in code quotes
		'^\\s*\\$ ',
		'`[^`]*(&&|\\|)[^`]*`',
	].join('|'),
	'm',
);
