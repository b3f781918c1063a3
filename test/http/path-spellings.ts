/**
 * Other spellings of a request path that a check on the raw URL could read differently from the
 * router: percent-encoded letters and slashes, other cases, doubled slashes, dot segments, a
 * trailing slash or suffix, a backslash, the absolute form. Some route to the same handler
 * (find-my-way decodes `%61` before matching), most to none; a guard must hold for all of them.
 */
export function spellings(path: string): string[] {
  const segments = path.split('/').slice(1);
  const join = (parts: readonly string[], slash = '/') => slash + parts.join(slash);
  const hex = (c: string, upper: boolean) => {
    const code = c.charCodeAt(0).toString(16);
    return `%${upper ? code.toUpperCase() : code}`;
  };
  const encodeFirstLetter = (segment: string, upper: boolean) => segment.replace(/[a-z]/i, (c) => hex(c, upper));
  const variants = [
    path,
    // One segment at a time with its first letter encoded (`/%61dmin/queues`, `/admin/%71ueues`).
    ...segments.map((_, i) => join(segments.map((s, j) => (j === i ? encodeFirstLetter(s, false) : s)))),
    // Every letter encoded, with upper-case hex digits.
    path.replace(/[a-z]/gi, (c) => hex(c, true)),
    // Encoded slashes, one and all.
    `/${segments[0]}%2F${segments.slice(1).join('/')}`,
    `/${segments.join('%2f')}`,
    // Case.
    path.toUpperCase(),
    join(segments.map((s) => s.charAt(0).toUpperCase() + s.slice(1))),
    // Doubled slashes.
    `/${path}`,
    `/${segments[0]}//${segments.slice(1).join('/')}`,
    join(segments, '//'),
    // Dot segments, plain and encoded.
    `/x/..${path}`,
    `/.${path}`,
    `/${segments[0]}/./${segments.slice(1).join('/')}`,
    `/${segments.slice(0, 2).join('/')}/x/../${segments.slice(2).join('/')}`,
    `/x/%2e%2e${path}`,
    `/%2E${path}`,
    // Trailing slashes and suffixes.
    `${path}/`,
    `${path}//`,
    `${path}/.`,
    `${path}?x=1`,
    `${path};x`,
    `${path}%20`,
    // A backslash for a slash, and the absolute form of the request target.
    `/${segments[0]}\\${segments.slice(1).join('/')}`,
    `http://localhost${path}`,
  ];
  return [...new Set(variants)];
}
