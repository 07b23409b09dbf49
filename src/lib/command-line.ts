/** `cmd arg1 arg2`: how upstream's mock keys commands, and how our recordings print them. */
export function commandLine(argv: readonly string[]): string {
  return argv.join(' ');
}
