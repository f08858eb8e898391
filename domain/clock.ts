// Time, injectable: tests pin it, the runtime reads the wall clock.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
