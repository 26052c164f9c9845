// Node: reads a run of stream events that differ only in one string (a tool call's next few characters of arguments,
// the next token of text) as one event, without parsing each. A megabyte of arguments streamed a token at a time is
// some 260,000 events of 150-250 bytes each: parsing every one into objects is most of the cost of reading the
// stream, and handing each to the assembler and to live output costs as much again. Instead the first event of a run
// is parsed and taken as a template: the text before its string and after it. An event that is that same text around
// another valid string body means exactly the template's value with that string in its place (JSON has one reading of
// it), so only the string body is decoded; the run is handed on as one event whose string is the run's strings joined,
// which the assembler takes exactly as it takes them one by one (each rule says when that holds).

/** Which events can be merged, and where their varying string is. */
export interface MergeRule<T> {
  /**
   * The event's string and its key (`arguments`), when the assembler treats a run of such events (equal but for that
   * string) like one event with their strings concatenated; undefined when it may not (the event carries anything
   * else that accumulates).
   */
  fieldOf(value: T): { key: string; text: string } | undefined;
  /** A copy of `value` with `text` as its string. */
  withField(value: T, text: string): T;
}

// How many events each merged value stands for (a value not in it stands for one): progress counts events received.
const merged = new WeakMap<object, number>();

/** The number of stream events `value` was read from: more than one for a merged run. */
export function eventsIn(value: unknown): number {
  return (typeof value === 'object' && value !== null && merged.get(value)) || 1;
}

interface Template<T> {
  name: string | undefined;
  prefix: string;
  suffix: string;
  /** The whole event's text before the string body and after it up to the next event (see `extendInText`). */
  framed: { head: string; tail: string } | undefined;
  value: T;
  pieces: string[];
}

/** Where an event's data sits in the stream's text: what comes before it in the event, and the end that closed it. */
export interface EventFraming {
  head: string;
  end: string;
}

/**
 * Parses one batch of events (`data` texts, each with its event name) with `parse`, merging runs that `rule` allows.
 * `parse` throws for an event the stream must fail on; merged events are only ever ones `parse` accepted in shape.
 */
export class DeltaRunReader<T> {
  private template: Template<T> | undefined;

  constructor(
    private readonly rule: MergeRule<T>,
    private readonly parse: (text: string, name: string | undefined) => T,
  ) {}

  /** The values of `events`, in order; a run that reaches the batch's end is handed on with the batch. */
  read(events: readonly { data: string; name: string | undefined }[]): T[] {
    const values: T[] = [];
    for (const { data, name } of events) this.take(data, name, values);
    this.flushInto(values);
    return values;
  }

  /**
   * Takes one event: extends the current run, or ends it (its value goes to `values`) and parses the event. With its
   * `framing`, the next events of a run it starts can be taken straight from the stream's text (`extendInText`).
   */
  take(data: string, name: string | undefined, values: T[], framing?: EventFraming): void {
    if (this.extend(data, name)) return;
    this.flushInto(values);
    const value = this.parse(data, name);
    this.template = this.templateOf(data, name, value, framing);
    if (!this.template) values.push(value);
  }

  /**
   * Takes the events at `from` in the stream's `text` that are exactly the current run's event around another
   * string body, and returns where the first other one starts. Nothing is parsed or searched for: the text around
   * the body is compared with the template's, and only the body is read, which is what reading a megabyte streamed a
   * token at a time costs. An event it leaves (cut off by the read's end, not a valid body, another shape) is read
   * the ordinary way. The text matched is char for char the first event's with only the body changed, and a body
   * holds no line break, so the event ends where that one did and reads as the same event with that string.
   */
  extendInText(text: string, from: number): number {
    const framed = this.template?.framed;
    if (!framed) return from;
    const { head, tail } = framed;
    const pieces = this.template!.pieces;
    let at = from;
    for (;;) {
      // A slice compared whole: V8's startsWith at a position costs ten times as much, and this runs per event.
      if (text.slice(at, at + head.length) !== head) return at;
      const start = at + head.length;
      let end = start;
      let escaped = false;
      for (; end < text.length; end++) {
        const char = text.charCodeAt(end);
        if (char === 0x22) break;
        if (char < 0x20) return at;
        if (char === 0x5c) {
          escaped = true;
          end += 1;
        }
      }
      if (end >= text.length || text.slice(end, end + tail.length) !== tail) return at;
      const piece = escaped ? stringBody(text.slice(start, end)) : text.slice(start, end);
      if (piece === undefined) return at;
      pieces.push(piece);
      at = end + tail.length;
    }
  }

  /** Adds `data` to the current run when it is the template around another string body. */
  private extend(data: string, name: string | undefined): boolean {
    const template = this.template;
    if (!template || template.name !== name) return false;
    const { prefix, suffix } = template;
    if (data.length < prefix.length + suffix.length || !data.startsWith(prefix) || !data.endsWith(suffix)) return false;
    const piece = stringBody(data.slice(prefix.length, data.length - suffix.length));
    if (piece === undefined) return false;
    template.pieces.push(piece);
    return true;
  }

  /** Hands on the current run, if any, as one value. */
  flushInto(values: T[]): void {
    const template = this.template;
    if (!template) return;
    const value = this.rule.withField(template.value, template.pieces.join(''));
    if (template.pieces.length > 1 && typeof value === 'object' && value !== null)
      merged.set(value, template.pieces.length);
    values.push(value);
    this.template = undefined;
  }

  /**
   * `data` as a template: the text before its string's body and after it. The split is taken as a template only when
   * putting another body there yields that body as the event's string: then the marker found is the string's own.
   */
  private templateOf(
    data: string,
    name: string | undefined,
    value: T,
    framing: EventFraming | undefined,
  ): Template<T> | undefined {
    const field = this.rule.fieldOf(value);
    if (field === undefined) return undefined;
    // The key as a serializer writes it, with the string's opening quote.
    const marker = `${JSON.stringify(field.key)}:"`;
    const at = data.lastIndexOf(marker);
    if (at === -1) return undefined;
    const start = at + marker.length;
    const end = closingQuote(data, start);
    if (end === -1) return undefined;
    const prefix = data.slice(0, start);
    const suffix = data.slice(end);
    if (stringBody(data.slice(start, end)) !== field.text) return undefined;
    try {
      const probed = this.rule.fieldOf(this.parse(`${prefix}${PROBE}${suffix}`, name));
      if (probed?.key !== field.key || probed.text !== PROBE_VALUE) return undefined;
    } catch {
      return undefined;
    }
    const framed = framing && { head: framing.head + prefix, tail: suffix + framing.end };
    return { name, prefix, suffix, framed, value, pieces: [field.text] };
  }
}

// A string body no serializer writes for a model's text: it tells the template's own string from a look-alike.
const PROBE = 'delta-run\\u0000probe';
const PROBE_VALUE = 'delta-run\u0000probe';

/** The index of the quote that closes a JSON string whose body starts at `from`; -1 when there is none. */
function closingQuote(text: string, from: number): number {
  for (let index = from; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === 0x5c) index += 1;
    else if (char === 0x22) return index;
  }
  return -1;
}

/** Whether `body` holds a quote, a backslash or a control character (below U+0020). */
function needsDecoding(body: string): boolean {
  for (let index = 0; index < body.length; index++) {
    const char = body.charCodeAt(index);
    if (char < 0x20 || char === 0x22 || char === 0x5c) return true;
  }
  return false;
}

/** The string a JSON string body (the text between its quotes) stands for; undefined when it is not one. */
function stringBody(body: string): string | undefined {
  // Most bodies need no unescaping; one with a quote or a control character is not a body at all.
  if (!needsDecoding(body)) return body;
  try {
    const value: unknown = JSON.parse(`"${body}"`);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
