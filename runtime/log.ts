// Structured JSON lines on stderr under the `capstan.` logger prefix (spec §1 token mapping).

export type Fields = Record<string, unknown>;

export interface Logger {
  info(message: string, fields?: Fields): void;
  warn(message: string, fields?: Fields): void;
  error(message: string, fields?: Fields): void;
  child(name: string): Logger;
}

export function createLogger(name = 'capstan', write: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const emit = (level: string) => (message: string, fields: Fields = {}) => {
    write(JSON.stringify({ ts: new Date().toISOString(), level, logger: name, message, ...fields }));
  };
  return {
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (sub) => createLogger(`${name}.${sub}`, write),
  };
}

export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};
