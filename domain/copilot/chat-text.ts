// What the copilot posts to a chat (an SRE report through the incoming webhook) made inert: a
// model's text can quote what the cluster says, and the cluster says what its workloads' owners
// write, so nothing posted may ping people or hide where a link goes. Slack's control sequences
// (`<!channel>`, `<!here>`, `<@U123>`, `<#C123|name>`, `<!subteam^ID|@team>`, `<url|text>`),
// plain mentions (`@here`, `@channel`, `@everyone`, `@all`, `@someone`: Mattermost and
// Rocket.Chat ping on those), markdown links and images, and clickable URLs are rewritten to
// text that reads the same and does nothing: a mention's `@` becomes the full-width `＠`, a link
// becomes its text followed by its target, and every target is defanged (`hxxps://evil[.]example/`)
// so no chat turns it back into a link. Pure.

/** An `@` that a chat would read as a mention, not one inside an address (ops@example.com). */
const MENTION_AT = /(^|[^\p{L}\p{N}_.+-])@(?=[\p{L}\p{N}_.-])/gu;
/** One of Slack's `<...>` sequences: no angle bracket inside, on one line, not starting with a space (`a < b -> c` is none). */
const SLACK_SEQUENCE = /<([^<>\s][^<>\n]*)>/g;
/** An HTML-escaped angle bracket (Slack reads its control sequences escaped too, in some clients). */
const ESCAPED_ANGLE = /&(lt|gt|#0*60|#0*62|#x0*3c|#x0*3e);/gi;
/** `[text](target)`, or `![alt](target)` for an image. */
const MARKDOWN_LINK = /!?\[([^\]\n]*)\]\(\s*<?([^()\s<>]*(?:\([^()\s]*\)[^()\s<>]*)*)>?(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;
/** A URL a chat would link by itself: any `scheme://`, or a `www.` host. */
const URL_LIKE = /\b([a-z][a-z0-9+.-]*):\/\/([^\s<>()[\]"'`|]+)|\bwww\.[^\s<>()[\]"'`|]+/gi;

/** A link target shown as text no chat links: `https` as `hxxps`, every dot of the host as `[.]`. Idempotent. */
export function defang(target: string): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(.*)$/is.exec(target);
  const host = (h: string) => h.replace(/(?<!\[)\.(?!\])/g, '[.]');
  if (m) {
    const [, scheme = '', authority = '', rest = ''] = m;
    return `${scheme.replace(/^http/i, (s) => (s === 'http' ? 'hxxp' : 'HXXP'))}://${host(authority)}${rest}`;
  }
  const www = /^(www\.[^/?#]*)(.*)$/is.exec(target);
  if (www) return `${host(www[1] ?? '')}${www[2] ?? ''}`;
  return target;
}

/** A Slack `<...>` sequence as inert text. */
function slackSequence(body: string): string {
  const bar = body.indexOf('|');
  const head = bar < 0 ? body : body.slice(0, bar);
  const label = bar < 0 ? null : body.slice(bar + 1);
  const name = (fallback: string) => (label ?? fallback).replace(/^[@#]/, '');
  // `<@U123>` a user, `<!channel>` / `<!here>` / `<!subteam^S1|@team>` a broadcast or a group, `<!date^...|text>` a date.
  if (head.startsWith('@')) return `＠${name(head.slice(1))}`;
  if (head.startsWith('!')) return head.startsWith('!date') && label !== null ? label : `＠${name(head.slice(1).split('^')[0] ?? '')}`;
  if (head.startsWith('#')) return `#${name(head.slice(1))}`;
  // A link: its text, then where it goes.
  const target = defang(head);
  return label === null || label === '' ? target : `${label} (${target})`;
}

export function neutraliseChatText(text: string): string {
  return (
    text
      // Escaped brackets first, so `&lt;!channel&gt;` cannot become a sequence in a client that unescapes.
      .replace(ESCAPED_ANGLE, (_m, e: string) => (/^(lt|#0*60|#x0*3c)$/i.test(e) ? '‹' : '›'))
      .replace(SLACK_SEQUENCE, (_m, body: string) => slackSequence(body))
      // A `<` left over (unpaired, or across lines) can open nothing.
      .replace(/</g, '‹')
      .replace(MARKDOWN_LINK, (_m, label: string, target: string) => (label.trim() === '' ? defang(target) : `${label} (${defang(target)})`))
      .replace(URL_LIKE, (url) => defang(url))
      .replace(MENTION_AT, (_m, before: string) => `${before}＠`)
  );
}
