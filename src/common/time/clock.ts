import { Injectable } from '@nestjs/common';

/** The current time, injectable so time-dependent rules are tested without waiting. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}

/** A clock the tests set by hand. */
export class FixedClock extends Clock {
  constructor(private current: Date) {
    super();
  }
  override now(): Date {
    return new Date(this.current);
  }
  set(date: Date): void {
    this.current = date;
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}
