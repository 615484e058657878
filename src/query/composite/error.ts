// Every problem with a composite expression is a 400 under `errors.params.compose`,
// worded "<what> at column N: expected <what would do>" where it has a place.
import { ApiError } from '../../errors.js';

export function composeError(message: string): ApiError {
  return new ApiError(400, { params: { compose: [message] } });
}

export function errorAt(what: string, column: number, expected: string): ApiError {
  return composeError(`${what} at column ${column}: expected ${expected}`);
}
