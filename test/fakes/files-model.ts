import type { FakeReply, RecordedRequest } from './openai-server.js';

/**
 * The model's side of the file tests. It reads the user message (text parts too) and:
 * - `[attached: uploads/<x>.csv — …]` → execute_code with a script that reads the CSV, sums its
 *   second column, draws a PNG with the standard library, prints `PNG <base64>` and calls
 *   `send_file('chart.png', caption='total <sum>')`;
 * - `[SEND:<path>]` → the send_file tool itself, with the caption `sent by the model`;
 * - `[MEDIA:<path>]` → a reply with the line `MEDIA:<path>`;
 * - `[READ:<path>]` → execute_code printing the file's bytes as hex (`HEX <hex>`);
 * - anything else → `echo: <text>`.
 * After a tool result it answers `done: <the result>`.
 */
export function filesModel(): FakeReply {
  return { respond: (request) => answer(request) };
}

/** The text of the last user message (its text parts, for a message with images). */
export function userText(request: RecordedRequest): string {
  const last = request.body.messages[request.body.messages.length - 1];
  if (typeof last.content === 'string') return last.content;
  if (Array.isArray(last.content)) {
    return (last.content as Array<{ type: string; text?: string }>).filter((part) => part.type === 'text').map((part) => part.text ?? '').join('\n');
  }
  return '';
}

function answer(request: RecordedRequest): FakeReply {
  const messages = request.body.messages;
  const last = messages[messages.length - 1];
  if (last.role === 'tool') return { text: `done: ${String(last.content).slice(0, 4000)}` };
  const text = userText(request);
  const csv = /\[attached: (uploads\/[^\s\]]+\.csv) — /.exec(text);
  if (csv) return { toolCalls: [{ name: 'execute_code', arguments: { code: chartScript(csv[1]) } }] };
  const send = /\[SEND:([^\]]+)\]/.exec(text);
  if (send) return { toolCalls: [{ name: 'send_file', arguments: { path: send[1], caption: 'sent by the model' } }] };
  const media = /\[MEDIA:([^\]]+)\]/.exec(text);
  if (media) return { text: `Here it is.\nMEDIA:${media[1]}` };
  const read = /\[READ:([^\]]+)\]/.exec(text);
  if (read) return { toolCalls: [{ name: 'execute_code', arguments: { code: `print("HEX", open(${JSON.stringify(read[1])}, "rb").read().hex())` } }] };
  return { text: `echo: ${text}` };
}

/** The script: sum the CSV's second column, draw a PNG whose colour and size depend on it, send it. */
export function chartScript(csvPath: string): string {
  return [
    'import base64, csv, struct, zlib',
    'from hermes_tools import send_file',
    `rows = list(csv.reader(open(${JSON.stringify(csvPath)}, newline="")))`,
    'total = sum(int(row[1]) for row in rows[1:])',
    'def png(w, h, rgb):',
    '    raw = b"".join(b"\\x00" + bytes(rgb) * w for _ in range(h))',
    '    def chunk(kind, data):',
    '        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)',
    '    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)',
    '    return b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")',
    'image = png(8 + total % 8, 6, (total % 256, 80, 200))',
    'open("chart.png", "wb").write(image)',
    'print("PNG", base64.b64encode(image).decode())',
    'print("SENT", send_file("chart.png", caption=f"total {total}"))',
  ].join('\n');
}

/** The PNG a chart script printed, from the tool results the model was sent. */
export function printedPng(requests: RecordedRequest[]): Buffer | undefined {
  for (const request of requests) {
    for (const message of request.body.messages) {
      if (message.role !== 'tool') continue;
      const match = /PNG ([A-Za-z0-9+/=]+)/.exec(String(message.content));
      if (match) return Buffer.from(match[1], 'base64');
    }
  }
  return undefined;
}
