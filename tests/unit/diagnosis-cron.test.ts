// The CronJob schedule evaluator: what it accepts, and when a schedule last fired and fires
// next, at the edges (steps, names, the day-of-month/day-of-week OR rule, month ends, zones).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextRun, parseCron, previousRun, type CronSchedule } from '../../domain/diagnosis/cron.ts';

function schedule(expression: string): CronSchedule {
  const parsed = parseCron(expression);
  if (!parsed.ok) throw new Error(`${expression}: ${parsed.error}`);
  return parsed.schedule;
}

const set = (values: readonly boolean[]): number[] => values.flatMap((on, v) => (on ? [v] : []));

describe('parseCron', () => {
  const fields: { expr: string; field: keyof Pick<CronSchedule, 'minutes' | 'hours' | 'daysOfMonth' | 'months' | 'daysOfWeek'>; want: number[] }[] = [
    { expr: '*/15 * * * *', field: 'minutes', want: [0, 15, 30, 45] },
    { expr: '10-30/10 * * * *', field: 'minutes', want: [10, 20, 30] },
    { expr: '50/5 * * * *', field: 'minutes', want: [50, 55] },
    { expr: '1,2,5-7 * * * *', field: 'minutes', want: [1, 2, 5, 6, 7] },
    { expr: '0 */7 * * *', field: 'hours', want: [0, 7, 14, 21] },
    { expr: '0 0 * JAN-MAR,dec *', field: 'months', want: [1, 2, 3, 12] },
    { expr: '0 0 * */5 *', field: 'months', want: [1, 6, 11] },
    { expr: '0 0 * * MON-FRI', field: 'daysOfWeek', want: [1, 2, 3, 4, 5] },
    { expr: '0 0 * * sat,Sun', field: 'daysOfWeek', want: [0, 6] },
    { expr: '0 0 * * 5-7', field: 'daysOfWeek', want: [0, 5, 6] },
    { expr: '0 0 31 * *', field: 'daysOfMonth', want: [31] },
    { expr: '@hourly', field: 'minutes', want: [0] },
    { expr: '@weekly', field: 'daysOfWeek', want: [0] },
    { expr: '@yearly', field: 'months', want: [1] },
  ];
  for (const c of fields) {
    it(`${c.expr} → ${c.field} ${c.want.join(',')}`, () => assert.deepEqual(set(schedule(c.expr)[c.field]), c.want));
  }

  const stars: { expr: string; dom: boolean; dow: boolean }[] = [
    { expr: '0 0 * * *', dom: true, dow: true },
    { expr: '0 0 ? * 1', dom: true, dow: false },
    { expr: '0 0 */1 * 1', dom: true, dow: false },
    // A stepped star restricts the field (robfig's rule), so the OR rule applies.
    { expr: '0 0 */2 * 1', dom: false, dow: false },
  ];
  for (const c of stars) {
    it(`${c.expr}: day-of-month star ${c.dom}, day-of-week star ${c.dow}`, () => {
      const s = schedule(c.expr);
      assert.equal(s.dayOfMonthStar, c.dom);
      assert.equal(s.dayOfWeekStar, c.dow);
    });
  }

  const invalid = ['', '* * * *', '* * * * * *', '60 * * * *', '* 24 * * *', '* * 0 * *', '* * 32 * *', '* * * 13 *', '* * * * 8', '*/0 * * * *', '5-1 * * * *', '1-2-3 * * * *', '* * * FOO *', '@every 5m', '@reboot', '0 0 * * SAT-SUN', 'TZ=Mars/Olympus 0 0 * * *', '1/2/3 * * * *'];
  for (const expr of invalid) {
    it(`refuses "${expr}"`, () => assert.equal(parseCron(expr).ok, false));
  }

  it('reads a CRON_TZ or TZ prefix, UTC otherwise', () => {
    assert.equal(schedule('0 0 * * *').timeZone, 'UTC');
    assert.equal(schedule('CRON_TZ=Europe/Berlin 0 0 * * *').timeZone, 'Europe/Berlin');
    assert.equal(schedule('TZ=America/New_York @daily').timeZone, 'America/New_York');
  });
});

describe('previousRun and nextRun', () => {
  const cases: { expr: string; at: string; prev: string | null; next: string | null }[] = [
    // A fire exactly at `at` is the previous run; the next is strictly after.
    { expr: '*/5 * * * *', at: '2026-03-10T12:05:00Z', prev: '2026-03-10T12:05:00Z', next: '2026-03-10T12:10:00Z' },
    { expr: '*/5 * * * *', at: '2026-03-10T12:04:59.999Z', prev: '2026-03-10T12:00:00Z', next: '2026-03-10T12:05:00Z' },
    { expr: '@hourly', at: '2026-01-01T00:00:30Z', prev: '2026-01-01T00:00:00Z', next: '2026-01-01T01:00:00Z' },
    // Across a year end.
    { expr: '30 23 31 12 *', at: '2027-01-01T00:00:00Z', prev: '2026-12-31T23:30:00Z', next: '2027-12-31T23:30:00Z' },
    // Month ends: the 31st skips 30-day months; February 29th waits for a leap year.
    { expr: '0 0 31 * *', at: '2026-05-15T00:00:00Z', prev: '2026-03-31T00:00:00Z', next: '2026-05-31T00:00:00Z' },
    { expr: '0 0 29 2 *', at: '2026-06-01T00:00:00Z', prev: '2024-02-29T00:00:00Z', next: '2028-02-29T00:00:00Z' },
    { expr: '0 12 30 2 *', at: '2026-06-01T00:00:00Z', prev: null, next: null },
    // Day of month OR day of week when both are restricted: the 13th or any Friday.
    // 2026-02-13 is a Friday; 2026-02-06 a Friday; 2026-03-13 a Friday too.
    { expr: '0 9 13 * FRI', at: '2026-02-12T00:00:00Z', prev: '2026-02-06T09:00:00Z', next: '2026-02-13T09:00:00Z' },
    { expr: '0 9 13 * FRI', at: '2026-02-14T00:00:00Z', prev: '2026-02-13T09:00:00Z', next: '2026-02-20T09:00:00Z' },
    { expr: '0 9 1 * MON', at: '2026-06-02T00:00:00Z', prev: '2026-06-01T09:00:00Z', next: '2026-06-08T09:00:00Z' },
    // With a star in either field, only the other counts: Mondays only here (2026-06-01 is one).
    { expr: '0 9 * * MON', at: '2026-06-03T00:00:00Z', prev: '2026-06-01T09:00:00Z', next: '2026-06-08T09:00:00Z' },
    { expr: '0 9 ? * 1', at: '2026-06-03T00:00:00Z', prev: '2026-06-01T09:00:00Z', next: '2026-06-08T09:00:00Z' },
    // Weekday names at the week's edges: Saturday and Sunday only (a range cannot wrap round).
    { expr: '0 6 * * SUN,SAT', at: '2026-06-03T00:00:00Z', prev: '2026-05-31T06:00:00Z', next: '2026-06-06T06:00:00Z' },
    { expr: '0 6 * * 6,7', at: '2026-06-03T00:00:00Z', prev: '2026-05-31T06:00:00Z', next: '2026-06-06T06:00:00Z' },
    // Hour steps within a range.
    { expr: '15 8-18/4 * * *', at: '2026-06-03T17:00:00Z', prev: '2026-06-03T16:15:00Z', next: '2026-06-04T08:15:00Z' },
    // Time zones: midnight in Berlin is 22:00 UTC in summer, 23:00 UTC in winter.
    { expr: 'CRON_TZ=Europe/Berlin 0 0 * * *', at: '2026-07-01T12:00:00Z', prev: '2026-06-30T22:00:00Z', next: '2026-07-01T22:00:00Z' },
    { expr: 'TZ=Europe/Berlin 0 0 * * *', at: '2026-01-15T12:00:00Z', prev: '2026-01-14T23:00:00Z', next: '2026-01-15T23:00:00Z' },
    // A run in the spring-forward gap (02:30 does not exist on 2026-03-29 in Berlin) happens an hour later.
    { expr: 'CRON_TZ=Europe/Berlin 30 2 * * *', at: '2026-03-29T05:00:00Z', prev: '2026-03-29T01:30:00Z', next: '2026-03-30T00:30:00Z' },
  ];
  for (const c of cases) {
    it(`${c.expr} around ${c.at}`, () => {
      const s = schedule(c.expr);
      assert.equal(previousRun(s, new Date(c.at))?.toISOString() ?? null, c.prev === null ? null : new Date(c.prev).toISOString());
      assert.equal(nextRun(s, new Date(c.at))?.toISOString() ?? null, c.next === null ? null : new Date(c.next).toISOString());
    });
  }
});

describe('parseCron with a zone from the CronJob', () => {
  it('reads the fields in that zone unless the schedule names its own', () => {
    assert.equal(schedule('0 0 * * *').timeZone, 'UTC');
    const zoned = parseCron('0 3 * * *', 'Europe/Berlin');
    assert.ok(zoned.ok);
    assert.equal(zoned.schedule.timeZone, 'Europe/Berlin');
    assert.equal(previousRun(zoned.schedule, new Date('2026-11-21T12:00:00Z'))?.toISOString(), '2026-11-21T02:00:00.000Z');
    const prefixed = parseCron('CRON_TZ=Asia/Tokyo 0 3 * * *', 'Europe/Berlin');
    assert.ok(prefixed.ok);
    assert.equal(prefixed.schedule.timeZone, 'Asia/Tokyo');
    assert.equal(parseCron('0 3 * * *', 'Nowhere/Atlantis').ok, false);
  });
});
