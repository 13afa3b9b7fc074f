import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  LOG_DETAILS_MAX,
  SINK_MAX_PER_MINUTE,
  logger,
  resetLogSinkBudget,
  setLogLevel,
  setLogSink,
  truncate,
} from './logger';

// spec §9: log levels 1 trace, 2 error, 3 debug; requests and successes at 3 or more, errors at 1 or more;
// logged detail length 1024.
afterEach(() => {
  setLogLevel(2);
  setLogSink(null);
  resetLogSinkBudget();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function spies() {
  const debug = vi.spyOn(console, 'debug').mockImplementation(() => undefined);
  const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const sink = vi.fn();
  setLogSink(sink);
  return { debug, error, sink };
}

describe('logger levels (spec §9)', () => {
  it('level 3 logs requests and successes (debug) and errors, and forwards errors to the sink', () => {
    setLogLevel(3);
    const { debug, error, sink } = spies();
    logger.debug('api', 'GET probe', { a: 1 });
    logger.error('api', 'probe failed', { status: 500 });
    expect(debug).toHaveBeenCalledWith('[api] GET probe', '{"a":1}');
    expect(error).toHaveBeenCalledWith('[api] probe failed {"status":500}');
    expect(sink).toHaveBeenCalledWith({
      type: 'error',
      module: 'api',
      details: 'probe failed {"status":500}',
    });
  });

  it('level 2 logs errors (console and sink) but not debug lines', () => {
    setLogLevel(2);
    const { debug, error, sink } = spies();
    logger.debug('api', 'GET probe');
    logger.error('api', 'probe failed');
    expect(debug).not.toHaveBeenCalled();
    expect(error).toHaveBeenCalledTimes(1);
    expect(sink).toHaveBeenCalledTimes(1);
  });

  it('level 1 writes errors to the console only; level 0 logs nothing', () => {
    setLogLevel(1);
    const { debug, error, sink } = spies();
    logger.error('api', 'probe failed');
    expect(error).toHaveBeenCalledTimes(1);
    expect(sink).not.toHaveBeenCalled();
    setLogLevel(0);
    logger.error('api', 'again');
    logger.debug('api', 'again');
    expect(error).toHaveBeenCalledTimes(1);
    expect(debug).not.toHaveBeenCalled();
  });

  it(`truncates details to ${LOG_DETAILS_MAX} characters, on the console and in the sink`, () => {
    setLogLevel(3);
    const { debug, sink } = spies();
    const long = 'x'.repeat(5000);
    logger.debug('api', 'big', long);
    expect(debug.mock.calls[0]?.[1]).toHaveLength(1024);
    logger.error('api', 'big', long);
    const sent = sink.mock.calls[0]?.[0] as { details: string };
    expect(sent.details).toHaveLength(1024);
    expect(sent.details.startsWith('big xxx')).toBe(true);
    expect(truncate('short')).toBe('short');
    expect(truncate('abcdef', 3)).toBe('abc');
  });
});

describe('the server never gets a flood of client errors', () => {
  it(`forwards at most ${SINK_MAX_PER_MINUTE} errors a minute; the rest stay on the console`, () => {
    vi.useFakeTimers();
    const { error, sink } = spies();
    for (let i = 0; i < 100; i++) logger.error('api', `failure ${i}`);
    expect(error).toHaveBeenCalledTimes(100);
    expect(sink).toHaveBeenCalledTimes(SINK_MAX_PER_MINUTE);
    vi.advanceTimersByTime(60_000);
    logger.error('api', 'later');
    expect(sink).toHaveBeenCalledTimes(SINK_MAX_PER_MINUTE + 1);
  });

  it('sends nothing while the browser is offline', () => {
    const { sink } = spies();
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    logger.error('api', 'offline failure');
    expect(sink).not.toHaveBeenCalled();
  });
});
