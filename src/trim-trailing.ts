// Trailing characters cut off in one pass from the end. The obvious
// expression, /[.!]+$/ or /\/+$/, is tried by JavaScript's engine at every
// start position in turn, each reading the whole run of those characters:
// quadratic in the run, and the text can be someone else's (a loyalty
// service's message, an address a merchant typed, a letter's reason).
export function trimTrailing(text: string, characters: string): string {
  let end = text.length;
  while (end > 0 && characters.includes(text[end - 1]!)) end--;
  return text.slice(0, end);
}
