import { HermesError } from '../shared/errors.js';

/** A scheduled job that cannot be made or changed as asked (a bad schedule, too many jobs, no such job). */
export class CronError extends HermesError {
  override readonly name = 'CronError';
}
