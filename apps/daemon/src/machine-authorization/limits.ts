export const CODE_LIFETIME_SECONDS = 600;
export const POLL_INTERVAL_SECONDS = 5;
export const CLIENT_CAPACITY = 8;
export const SERVER_CAPACITY = 128;
// One network (IPv4 /24, IPv6 /48) may hold a quarter of the pool: an office still connects four machines per
// person-minute while the rest stays open to everyone else.
export const NETWORK_CAPACITY = 32;
// One wide network (IPv4 /16, IPv6 /32) may hold three eighths: one operator's /24s cannot fill the pool.
export const WIDE_NETWORK_CAPACITY = 48;
export const STARTS_PER_MINUTE = 6;
export const POLLS_PER_MINUTE = 120;
export const FAILED_LOOKUPS_PER_ACTOR_PER_MINUTE = 10;
export const FAILED_LOOKUPS_PER_CLIENT_PER_MINUTE = 20;
// Each company sign-in start stores a row (swept after ten minutes): a person needs a handful, a script no more.
export const COMPANY_SIGN_IN_STARTS_PER_MINUTE = 20;

export const RATE_SCOPES = {
  start: 'machine_auth_start',
  poll: 'machine_auth_poll',
  lookupFailActor: 'machine_auth_lookup_fail_actor',
  lookupFailClient: 'machine_auth_lookup_fail_client',
  signInFailClient: 'approval_sign_in_fail_client',
  companySignInStart: 'approval_company_sign_in_start',
} as const;

// pg advisory lock keys (any fixed 64-bit numbers; 7_301_001/002 are the migration and bootstrap locks).
export const CAPACITY_LOCK_KEY = 7_301_101;
export const SWEEP_LOCK_KEY = 7_301_102;
