/**
 * How the simulator's answers are shaped: `documented` (default) exactly as docs/exchange-api.md
 * describes them, or `recorded`, the shapes the real exchange has been recorded or documented
 * giving (test/fixtures/exchange-answers/SOURCES.md) that differ from it without changing one
 * record: `requestTime` as a string, an unlisted envelope field (`httpCode`), history positions
 * without `posMode`, with lower-case `ctime`/`utime` and unlisted fields (`leverage`,
 * `achievedProfits`), the deposit cursor only as `endId`, batch-cancel failures without `errorCode`.
 */
export type AnswerShapes = 'documented' | 'recorded';

export const ANSWER_SHAPES: readonly AnswerShapes[] = ['documented', 'recorded'];

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** One history position as the 2024-2025 answers had it (the record's values unchanged). */
function recordedPosition(item: Json): Json {
  const { posMode: _posMode, cTime, uTime, ...rest } = item;
  const out: Json = { ...rest };
  if (cTime !== undefined) out.ctime = cTime;
  if (uTime !== undefined) out.utime = uTime;
  // Fields the live exchange sends and the documentation's table does not list.
  out.leverage = '10';
  out.achievedProfits = null;
  return out;
}

/**
 * A successful answer's body in the recorded shapes. Parsed and written again: a test's mode,
 * never the benchmarks' hot path. The endpoint is known by its path's last part.
 */
export function recordedShapeOf(path: string, body: string | Buffer): string {
  const answer = JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as Json;
  const endpoint = path.slice(path.lastIndexOf('/') + 1);
  const data = answer.data;
  if (endpoint === 'history-position' && isObject(data) && Array.isArray(data.list)) {
    data.list = data.list.map((item) => (isObject(item) ? recordedPosition(item) : item));
  }
  if (endpoint === 'all-sub-deposit-withdrawal' && isObject(data)) {
    delete data.cursor;
  }
  if (endpoint === 'batch-cancel-order' && isObject(data) && Array.isArray(data.failureList)) {
    data.failureList = data.failureList.map((item) => {
      if (!isObject(item)) return item;
      const { errorCode: _errorCode, ...rest } = item;
      return rest;
    });
  }
  const { code, msg, requestTime } = answer;
  return JSON.stringify({ code, msg, requestTime: String(requestTime), httpCode: '200', data });
}
