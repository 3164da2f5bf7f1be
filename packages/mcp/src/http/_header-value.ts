// The one way a header value leaves the HTTP host. Node refuses to send a
// value holding a line break, a control character or a character beyond
// Latin-1 (it throws ERR_INVALID_CHAR, which would turn a refusal into a
// 500), and what is not ASCII is read differently by different clients.
// Values that carry text from elsewhere (an authenticator's challenge, a
// request's Origin) are passed through here first.

/**
 * `value` as a header value every client reads alike: tab and printable
 * ASCII are kept, every other character (line breaks, control characters,
 * text beyond ASCII) becomes `?`.
 *
 * @example
 * headerValue("1\u2013256\r\nSet-Cookie: x"); // "1?256??Set-Cookie: x"
 */
export function headerValue(value: string): string {
  return value.replace(/[^\t\x20-\x7e]/gu, "?");
}
