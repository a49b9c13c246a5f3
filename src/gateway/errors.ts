import { HermesError } from '../shared/errors.js';

/** A gateway or platform adapter that cannot do what was asked (bad setup, a platform refusing). */
export class GatewayError extends HermesError {
  override readonly name = 'GatewayError';
}
