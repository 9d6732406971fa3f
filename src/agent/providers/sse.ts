// Server-sent events, read from a fetch body: what the chat-completions and
// Messages streams are framed in. rt reads the frames itself rather than
// through the client libraries' iterators because those throw on an error
// frame before the rest of it can be read (OpenRouter puts the usage and the
// finish reason in the same chunk as its error), and because what an error
// frame says decides whether it is worth a retry (errors.ts), not where it
// arrived.
//
// The framing follows the HTML standard's event-stream parsing: lines end in
// LF, CRLF or CR; "data:" lines of one event are joined with LF; a line
// starting with ":" is a comment (OpenRouter's ": OPENROUTER PROCESSING"
// keep-alives); a blank line ends the event. A last event without its blank
// line is still delivered when the body ends.

export interface SseEvent {
  /** The `event:` field, when the server names its events (Anthropic does). */
  event?: string;
  data: string;
}

export async function* sseEvents(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  onBytes?: () => void,
): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let event: string | undefined;
  // A CR at the end of a chunk may be the first half of a CRLF split across chunks.
  let pendingCR = false;

  function* line(text: string): Generator<SseEvent> {
    if (text === "") {
      if (data.length) yield { ...(event !== undefined ? { event } : {}), data: data.join("\n") };
      data = [];
      event = undefined;
      return;
    }
    if (text.startsWith(":")) return;
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
    // "id" and "retry" mean nothing for a one-shot answer.
  }

  function* drain(): Generator<SseEvent> {
    for (;;) {
      const m = /\r\n|\r|\n/.exec(buffer);
      if (!m) return;
      if (m[0] === "\r" && m.index === buffer.length - 1) return; // wait: it may be a CRLF
      yield* line(buffer.slice(0, m.index));
      buffer = buffer.slice(m.index + m[0].length);
    }
  }

  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    onBytes?.();
    let text = decoder.decode(chunk, { stream: true });
    if (pendingCR) {
      text = `\r${text}`;
      pendingCR = false;
    }
    buffer += text;
    yield* drain();
    if (buffer.endsWith("\r")) {
      buffer = buffer.slice(0, -1);
      pendingCR = true;
    }
  }
  buffer += decoder.decode() + (pendingCR ? "\n" : "");
  yield* drain();
  if (buffer !== "") yield* line(buffer);
  yield* line("");
}

/**
 * A 200 answer to a streaming request that is not a stream: a server or proxy that ignores
 * `stream: true` sends the whole answer as one JSON document (Content-Type application/json).
 * Returns the parsed document, or, when the body is not JSON after all, the same bytes as a
 * body to read as events (a server that labels its event stream application/json).
 */
export async function wholeJsonBody(
  res: Response,
  alive: () => void,
): Promise<{ json: unknown } | { events: AsyncIterable<Uint8Array> } | undefined> {
  const type = res.headers.get("content-type") ?? "";
  if (!/\bjson\b/i.test(type) || /event-stream/i.test(type)) return undefined;
  const text = await res.text();
  alive();
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return { events: [new TextEncoder().encode(text)] as unknown as AsyncIterable<Uint8Array> };
  }
}
