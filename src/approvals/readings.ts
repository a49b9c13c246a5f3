/**
 * The readings of a command or word so far, each extended by every option of the next piece,
 * at most `max` of them. One reading with one option (the usual case) grows in place, so a
 * word of thousands of pieces or a command of thousands of words stays linear.
 */
export function extendReadings<T>(readings: T[][], options: readonly (readonly T[])[], max: number): T[][] {
  if (readings.length === 1 && options.length === 1) {
    for (const item of options[0]) readings[0].push(item);
    return readings;
  }
  const next: T[][] = [];
  for (const prefix of readings) for (const option of options) if (next.length < max) next.push([...prefix, ...option]);
  return next;
}
