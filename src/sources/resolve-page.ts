/**
 * Finding the media a web page hosts, from its HTML alone (no scripts run):
 * Open Graph `og:audio`/`og:video` (and their :url/:secure_url forms),
 * `<audio>`/`<video>` with `src` or child `<source>` elements, and JSON-LD
 * `contentUrl`. Links resolve against the page URL (or its `<base href>`).
 * Audio comes before video: a page with both hosts the audio we want.
 * A small linear scanner instead of regular expressions over whole tags, so
 * hostile markup cannot make it backtrack; the caller bounds the page size.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes the character references that occur in attribute values. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

interface Tag {
  name: string;
  closing: boolean;
  attrs: Map<string, string>;
}

/** Yields the tags of `html` in order, and the text of each <script> element after its tag. */
function* scan(html: string): Generator<Tag | { script: string }> {
  let i = 0;
  const n = html.length;
  while (i < n) {
    i = html.indexOf('<', i);
    if (i < 0) return;
    if (html.startsWith('<!--', i)) {
      const end = html.indexOf('-->', i + 4);
      i = end < 0 ? n : end + 3;
      continue;
    }
    const head = /^<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)/.exec(html.slice(i, i + 64));
    if (!head) {
      i += 1;
      continue;
    }
    const name = head[2]!.toLowerCase();
    const closing = head[1] === '/';
    const attrs = new Map<string, string>();
    let j = i + head[0].length;
    while (j < n) {
      while (j < n && /[\s/]/.test(html[j]!)) j++;
      if (j >= n || html[j] === '>') break;
      let k = j;
      while (k < n && !/[\s=>/]/.test(html[k]!)) k++;
      const attr = html.slice(j, k).toLowerCase();
      j = k;
      while (j < n && /\s/.test(html[j]!)) j++;
      let value = '';
      if (html[j] === '=') {
        j++;
        while (j < n && /\s/.test(html[j]!)) j++;
        const quote = html[j];
        if (quote === '"' || quote === "'") {
          const end = html.indexOf(quote, j + 1);
          value = html.slice(j + 1, end < 0 ? n : end);
          j = end < 0 ? n : end + 1;
        } else {
          k = j;
          while (k < n && !/[\s>]/.test(html[k]!)) k++;
          value = html.slice(j, k);
          j = k;
        }
      }
      if (attr && !attrs.has(attr)) attrs.set(attr, decodeEntities(value));
    }
    i = j + 1;
    yield { name, closing, attrs };
    if (!closing && (name === 'script' || name === 'style')) {
      const closer = name === 'script' ? /<\/script/gi : /<\/style/gi;
      closer.lastIndex = i;
      const stop = closer.exec(html)?.index ?? n;
      if (name === 'script') yield { script: html.slice(i, stop) };
      i = stop;
    }
  }
}

/** Every `contentUrl` in a JSON-LD value, audio objects first. */
function jsonLdUrls(value: unknown, depth = 0, out: { audio: string[]; other: string[] } = { audio: [], other: [] }): { audio: string[]; other: string[] } {
  if (depth > 32 || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) {
    for (const item of value) jsonLdUrls(item, depth + 1, out);
    return out;
  }
  const record = value as Record<string, unknown>;
  const type = ([] as unknown[]).concat(record['@type'] ?? []).map(String);
  const isAudio = type.some((t) => /AudioObject|MusicRecording|AudioBook|PodcastEpisode/i.test(t));
  for (const url of ([] as unknown[]).concat(record.contentUrl ?? [])) {
    if (typeof url === 'string') (isAudio ? out.audio : out.other).push(url);
  }
  for (const [key, child] of Object.entries(record)) {
    if (key !== 'contentUrl') jsonLdUrls(child, depth + 1, out);
  }
  return out;
}

const OG_AUDIO = new Set(['og:audio', 'og:audio:url', 'og:audio:secure_url']);
const OG_VIDEO = new Set(['og:video', 'og:video:url', 'og:video:secure_url']);

/** Most candidates returned; later ones are rarely better and each costs a fetch. */
export const MAX_CANDIDATES = 10;

/**
 * The media URLs `html` (fetched from `pageUrl`) points at, best first,
 * absolute, http(s) only, without duplicates, at most MAX_CANDIDATES.
 */
export function findMediaUrls(html: string, pageUrl: string): string[] {
  let base = pageUrl;
  let baseSeen = false;
  const ogAudio: string[] = [];
  const ogVideo: string[] = [];
  const audio: string[] = [];
  const video: string[] = [];
  let ld = { audio: [] as string[], other: [] as string[] };
  let inside: 'audio' | 'video' | null = null;
  let scriptIsJsonLd = false;

  for (const item of scan(html)) {
    if ('script' in item) {
      if (scriptIsJsonLd) {
        try {
          ld = jsonLdUrls(JSON.parse(item.script), 0, ld);
        } catch {
          // A broken JSON-LD block is common and not our problem: other sources may still work.
        }
      }
      continue;
    }
    const { name, closing, attrs } = item;
    if (closing) {
      if (name === inside) inside = null;
      continue;
    }
    switch (name) {
      case 'base':
        if (!baseSeen && attrs.get('href')) {
          baseSeen = true;
          try {
            base = new URL(attrs.get('href')!, pageUrl).toString();
          } catch {
            // Keep the page URL.
          }
        }
        break;
      case 'meta': {
        const property = (attrs.get('property') ?? attrs.get('name') ?? '').toLowerCase();
        const content = attrs.get('content');
        if (content && OG_AUDIO.has(property)) ogAudio.push(content);
        else if (content && OG_VIDEO.has(property)) ogVideo.push(content);
        break;
      }
      case 'audio':
      case 'video':
        inside = name;
        if (attrs.get('src')) (name === 'audio' ? audio : video).push(attrs.get('src')!);
        break;
      case 'source':
        if (attrs.get('src')) (inside === 'video' ? video : audio).push(attrs.get('src')!);
        break;
      case 'script':
        scriptIsJsonLd = (attrs.get('type') ?? '').trim().toLowerCase() === 'application/ld+json';
        break;
      default:
        break;
    }
  }

  const out: string[] = [];
  for (const raw of [...ogAudio, ...audio, ...ld.audio, ...ld.other, ...ogVideo, ...video]) {
    let url: URL;
    try {
      url = new URL(raw.trim(), base);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    url.hash = '';
    const text = url.toString();
    if (!out.includes(text)) out.push(text);
    if (out.length >= MAX_CANDIDATES) break;
  }
  return out;
}

/** Whether a response is a web page to look inside rather than media. */
export function looksLikeHtml(contentType: string | undefined, head: Uint8Array): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml') return true;
  const start = Buffer.from(head.subarray(0, 512)).toString('latin1').replace(/^\uFEFF|^\xEF\xBB\xBF/, '').trimStart().toLowerCase();
  return start.startsWith('<!doctype html') || start.startsWith('<html') || start.startsWith('<head') || start.startsWith('<meta');
}
