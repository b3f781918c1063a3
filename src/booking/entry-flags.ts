/** The flag of a trade-type record that could not be paired: counted apart and listed in a side file. */
export const UNPAIRED_LEG = 'unpaired-leg';

/** Flag prefix of a row that is counted in the manifest (per value after the prefix) but not written. */
export const OMITTED_PREFIX = 'omitted:';
/** Flag prefix of a row written as booked but counted in the manifest for an accountant to confirm. */
export const REVIEW_PREFIX = 'review:';
