// A loyalty service's words reach the order's record (work.lastError), which
// PostgreSQL keeps as jsonb: a NUL in them would be refused there, and the
// order could never be saved again. The bridge keeps the words, without NULs.
import { describe, expect, it } from 'vitest';
import { errorForResponse } from '../../src/loyalty/errors.ts';

describe('a service’s error text', () => {
  it('is kept without NUL characters, whatever the service sent', () => {
    const error = errorForResponse({
      operation: 'earn',
      httpStatus: 422,
      serviceMessage: 'bad\u0000 request',
      detail: 'field\u0000x',
    });
    expect(error.message).toContain('bad request: fieldx');
    expect(error.message).not.toContain('\u0000');
  });
});
