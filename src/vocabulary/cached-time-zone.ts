import { IANAZone, Info, Zone, type ZoneOffsetFormat, type ZoneOffsetOptions } from 'luxon';

const HOUR_MS = 3_600_000;

/** Hours remembered per zone before the memory starts again (about 11 years of hours). */
const HOURS_KEPT = 100_000;

/**
 * An IANA zone whose offsets are remembered per UTC hour. Luxon asks a zone for its offset several
 * times for every DateTime it makes, moves or compares, and an IANA zone answers each time through
 * `Intl.DateTimeFormat#formatToParts`: a German gains file spent two thirds of its time there.
 *
 * An hour whose first and last millisecond have the same offset holds no transition (tzdb zones
 * change their offset a few times a year, never twice within an hour and back), so every instant in
 * it has that offset; an hour holding a transition is asked of the zone instant by instant. The
 * answers are therefore the IANA zone's own, and luxon treats this zone as that one: same type,
 * same name, equal to it.
 */
class CachedIanaZone extends Zone {
  readonly #zone: IANAZone;
  /** Per UTC hour (ms / 1h), its offset in minutes, or null when a transition falls inside it. */
  readonly #hours = new Map<number, number | null>();

  constructor(name: string) {
    super();
    this.#zone = IANAZone.create(name);
  }

  override get type(): string {
    return 'iana';
  }

  override get name(): string {
    return this.#zone.name;
  }

  get ianaName(): string {
    return this.#zone.name;
  }

  override get isUniversal(): boolean {
    return false;
  }

  override get isValid(): true {
    return this.#zone.isValid as true;
  }

  override offsetName(ts: number, options: ZoneOffsetOptions): string {
    return this.#zone.offsetName(ts, options) as string;
  }

  override formatOffset(ts: number, format: ZoneOffsetFormat): string {
    return this.#zone.formatOffset(ts, format) as string;
  }

  override offset(ts: number): number {
    if (!Number.isFinite(ts)) return this.#zone.offset(ts);
    const hour = Math.floor(ts / HOUR_MS);
    let known = this.#hours.get(hour);
    if (known === undefined) {
      const last = this.#zone.offset(hour * HOUR_MS + HOUR_MS - 1);
      // The walks read forwards, hour after hour: when the hour before had this hour's last offset
      // throughout, the hour from its last millisecond to this one's held no transition either
      // (it would change and come back within an hour), so one question of the zone is enough.
      const first = this.#hours.get(hour - 1) === last ? last : this.#zone.offset(hour * HOUR_MS);
      known = first === last ? first : null;
      if (this.#hours.size >= HOURS_KEPT) this.#hours.clear();
      this.#hours.set(hour, known);
    }
    return known ?? this.#zone.offset(ts);
  }

  override equals(other: Zone): boolean {
    return other.type === 'iana' && other.name === this.name;
  }
}

const zones = new Map<string, Zone>();

/**
 * The zone of an IANA name (as `parseTimeZone` returns it) for luxon's `{ zone }` options, where the
 * same zone is asked for many instants: the gains walks' dates, a report's local times. Any other
 * name (UTC, an invalid one) is the zone luxon itself makes of it, as the plain string would give.
 */
export function cachedTimeZone(name: string): Zone {
  let zone = zones.get(name);
  if (zone === undefined) {
    const own = Info.normalizeZone(name);
    zone = own.type === 'iana' && own.isValid ? new CachedIanaZone(own.name) : own;
    zones.set(name, zone);
  }
  return zone;
}
