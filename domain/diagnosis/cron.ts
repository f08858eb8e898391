// A small evaluator for CronJob schedules, enough to tell when a CronJob was last due.
// It follows what the CronJob controller accepts (the standard 5-field syntax of
// robfig/cron's ParseStandard): `*`/`?`, values, `a-b` ranges, `/step`, comma lists,
// three-letter month and weekday names, the @yearly/@annually/@monthly/@weekly/@daily/
// @midnight/@hourly shorthands, and a leading `CRON_TZ=<zone>` or `TZ=<zone>`. Times are
// UTC unless a zone is given. `@every <duration>` counts from when the controller started,
// which nobody can know from outside, so it is refused like a malformed schedule.
//
// Day of month and day of week: when both are restricted, a day matches if EITHER matches
// (cron's OR rule); when one of them is `*` (or `?`), only the other one counts. `*/2` is
// not a `*` here (robfig's rule: a star with a step above 1 restricts the field).

export interface CronSchedule {
  /** Index = the field's value; months 1..12, days of month 1..31, weekdays 0..6 (Sunday 0). */
  minutes: readonly boolean[];
  hours: readonly boolean[];
  daysOfMonth: readonly boolean[];
  months: readonly boolean[];
  daysOfWeek: readonly boolean[];
  /** The field was `*` or `?`: it does not take part in the day-of-month/day-of-week OR rule. */
  dayOfMonthStar: boolean;
  dayOfWeekStar: boolean;
  /** IANA time zone the fields are read in; 'UTC' unless the schedule names one. */
  timeZone: string;
}

export type CronParse = { ok: true; schedule: CronSchedule } | { ok: false; error: string };

const SHORTHANDS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  /** Lower-case names for min, min+1, ... */
  names?: readonly string[];
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES },
  // 7 is accepted as Sunday, as most crons do; it is folded onto 0 below.
  { name: 'day of week', min: 0, max: 7, names: DAY_NAMES },
];

function parseValue(text: string, field: FieldSpec): number | null {
  if (/^\d+$/.test(text)) return Number(text);
  const named = field.names?.indexOf(text.toLowerCase()) ?? -1;
  return named >= 0 ? named + field.min : null;
}

/** One field into its set of values (index = value), or an error. */
function parseField(text: string, field: FieldSpec): { values: boolean[]; star: boolean } | string {
  const values = Array.from({ length: field.max + 1 }, () => false);
  let star = false;
  for (const part of text.split(',')) {
    const [range = '', stepText, extra] = part.split('/');
    if (extra !== undefined || range === '') return `bad ${field.name} "${part}"`;
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0) return `bad step in ${field.name} "${part}"`;
      step = Number(stepText);
    }
    let low: number;
    let high: number;
    if (range === '*' || range === '?') {
      low = field.min;
      high = field.max;
      if (step === 1) star = true;
    } else {
      const bounds = range.split('-');
      if (bounds.length > 2) return `bad range in ${field.name} "${part}"`;
      const from = parseValue(bounds[0] ?? '', field);
      const to = bounds.length === 2 ? parseValue(bounds[1] ?? '', field) : from;
      if (from === null || to === null) return `bad value in ${field.name} "${part}"`;
      low = from;
      // `a/step` runs from a to the field's end, as in every cron.
      high = bounds.length === 1 && stepText !== undefined ? field.max : to;
    }
    if (low < field.min || high > field.max || low > high) return `${field.name} "${part}" is out of range ${field.min}-${field.max}`;
    for (let v = low; v <= high; v += step) values[v] = true;
  }
  return { values, star };
}

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Parses a CronJob's `spec.schedule`, read in `zone` (a CronJob's `spec.timeZone`, UTC when
 * unset) unless the schedule itself starts with CRON_TZ=/TZ= (the API refuses both at once).
 */
export function parseCron(expression: string, zone: string | null = null): CronParse {
  let text = expression.trim();
  let timeZone = zone ?? 'UTC';
  if (!validTimeZone(timeZone)) return { ok: false, error: `unknown time zone "${timeZone}"` };
  const prefix = /^(?:CRON_TZ|TZ)=(\S+)\s+/.exec(text);
  if (prefix) {
    timeZone = prefix[1] ?? 'UTC';
    if (!validTimeZone(timeZone)) return { ok: false, error: `unknown time zone "${timeZone}"` };
    text = text.slice(prefix[0].length);
  }
  if (text.startsWith('@')) {
    const expanded = SHORTHANDS[text.toLowerCase()];
    if (expanded === undefined) return { ok: false, error: `unsupported schedule "${text}"` };
    text = expanded;
  }
  const parts = text.split(/\s+/);
  if (parts.length !== 5) return { ok: false, error: `expected 5 fields, got ${parts.length}` };
  const parsed: { values: boolean[]; star: boolean }[] = [];
  for (const [i, field] of FIELDS.entries()) {
    const result = parseField(parts[i] ?? '', field);
    if (typeof result === 'string') return { ok: false, error: result };
    parsed.push(result);
  }
  const [minute, hour, dom, month, dow] = parsed as [typeof parsed[number], typeof parsed[number], typeof parsed[number], typeof parsed[number], typeof parsed[number]];
  const daysOfWeek = dow.values.slice(0, 7);
  if (dow.values[7] === true) daysOfWeek[0] = true;
  return {
    ok: true,
    schedule: {
      minutes: minute.values,
      hours: hour.values,
      daysOfMonth: dom.values,
      months: month.values,
      daysOfWeek,
      dayOfMonthStar: dom.star,
      dayOfWeekStar: dow.star,
      timeZone,
    },
  };
}

// The search runs on "wall-clock" times: the zone's local fields stored as if they were UTC,
// so the UTC getters read the local date. For UTC both are the same number.
const MINUTE = 60_000;
/** Like robfig/cron, a schedule with no run within five years is treated as never running. */
const HORIZON_MS = 5 * 366 * 24 * 60 * MINUTE;

const formatters = new Map<string, Intl.DateTimeFormat>();

function wallClock(instant: number, zone: string): number {
  if (zone === 'UTC') return instant;
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
    formatters.set(zone, format);
  }
  const part: Record<string, number> = {};
  for (const p of format.formatToParts(instant)) if (p.type !== 'literal') part[p.type] = Number(p.value);
  return Date.UTC(part.year ?? 1970, (part.month ?? 1) - 1, part.day ?? 1, part.hour ?? 0, part.minute ?? 0);
}

/**
 * The instant a wall-clock time names. In a DST gap the time does not exist and this lands an
 * hour later (as Go's time.Date normalises it); in a DST overlap it picks one of the two.
 */
function instantOf(wall: number, zone: string): number {
  if (zone === 'UTC') return wall;
  const guess = wall - (wallClock(wall, zone) - wall);
  return wall - (wallClock(guess, zone) - guess);
}

function dayMatches(s: CronSchedule, wall: Date): boolean {
  const dom = s.daysOfMonth[wall.getUTCDate()] === true;
  const dow = s.daysOfWeek[wall.getUTCDay()] === true;
  return s.dayOfMonthStar || s.dayOfWeekStar ? dom && dow : dom || dow;
}

type Step = 'back' | 'forward';

/**
 * From a wall-clock minute, the next candidate in the direction of search: a whole month,
 * day or hour is skipped at once when it cannot match, so the cost is a few hundred steps
 * per year searched, not one per minute.
 */
function advance(s: CronSchedule, wall: number, step: Step): { wall: number; match: boolean } {
  const d = new Date(wall);
  const [y, mo, day, h] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours()];
  const back = step === 'back';
  if (s.months[mo + 1] !== true) return { wall: back ? Date.UTC(y, mo, 1) - MINUTE : Date.UTC(y, mo + 1, 1), match: false };
  if (!dayMatches(s, d)) return { wall: back ? Date.UTC(y, mo, day) - MINUTE : Date.UTC(y, mo, day + 1), match: false };
  if (s.hours[h] !== true) return { wall: back ? Date.UTC(y, mo, day, h) - MINUTE : Date.UTC(y, mo, day, h + 1), match: false };
  if (s.minutes[d.getUTCMinutes()] !== true) return { wall: back ? wall - MINUTE : wall + MINUTE, match: false };
  return { wall, match: true };
}

/** The latest time the schedule fires at or before `at`, or null if none within five years. */
export function previousRun(s: CronSchedule, at: Date): Date | null {
  const bound = Math.floor(at.getTime() / MINUTE) * MINUTE;
  let wall = wallClock(bound, s.timeZone);
  const stop = wall - HORIZON_MS;
  while (wall >= stop) {
    const next = advance(s, wall, 'back');
    if (next.match) {
      const instant = instantOf(next.wall, s.timeZone);
      if (instant <= bound) return new Date(instant);
      wall = next.wall - MINUTE;
    } else wall = next.wall;
  }
  return null;
}

/** The earliest time the schedule fires strictly after `after`, or null if none within five years. */
export function nextRun(s: CronSchedule, after: Date): Date | null {
  const bound = after.getTime();
  const start = Math.floor(bound / MINUTE) * MINUTE + MINUTE;
  let wall = wallClock(start, s.timeZone);
  const stop = wall + HORIZON_MS;
  while (wall <= stop) {
    const next = advance(s, wall, 'forward');
    if (next.match) {
      const instant = instantOf(next.wall, s.timeZone);
      if (instant > bound) return new Date(instant);
      wall = next.wall + MINUTE;
    } else wall = next.wall;
  }
  return null;
}
