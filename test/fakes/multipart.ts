import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import busboy from 'busboy';

/** A file part of a multipart/form-data body. */
export interface UploadedPart {
  /** The form field (`document`, `files[0]`, `file`). */
  field: string;
  filename: string;
  mimeType: string;
  bytes: Buffer;
}

export interface MultipartBody {
  fields: Record<string, string>;
  files: UploadedPart[];
}

/**
 * Parses a multipart/form-data body with busboy, which reads headers as leniently as the real
 * services do (grammY writes `filename=name` unquoted, which undici's FormData parser refuses).
 */
export function readMultipart(headers: IncomingHttpHeaders, body: Buffer | Readable): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    const parsed: MultipartBody = { fields: {}, files: [] };
    const parser = busboy({ headers, limits: { fieldSize: 16 * 1024 * 1024 } });
    parser.on('field', (name, value) => {
      parsed.fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => parsed.files.push({ field, filename: info.filename ?? '', mimeType: info.mimeType, bytes: Buffer.concat(chunks) }));
    });
    parser.on('error', reject);
    parser.on('close', () => resolve(parsed));
    (Buffer.isBuffer(body) ? Readable.from([body]) : body).pipe(parser);
  });
}
