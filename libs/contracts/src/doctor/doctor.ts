export interface DoctorReplicaWire {
  name: string;
  version: string;
  secret_fingerprint: string;
  clock_skew_ms: number;
  started_at: string;
  seen_at: string;
}

export interface DoctorReport {
  replica: {
    name: string;
    version: string;
    started_at: string;
    // HMAC-SHA256 of a fixed string under the server secret, first 16 hex digits: equal on replicas sharing it
    secret_fingerprint: string;
    secret_source: 'environment' | 'file';
  };
  database: {
    server_version: string;
    embedded: boolean;
    data_directory: string | null;
    migrations: {
      applied: number;
      latest: string | null;
      pending: string[];
      unknown: string[];
    };
  };
  // this replica's clock minus PostgreSQL's (positive: this clock is behind), and the reading's half round trip
  clock: { skew_ms: number; uncertainty_ms: number };
  replicas: DoctorReplicaWire[];
  replicas_window_seconds: number;
  public_url: string | null;
  listen: { host: string; port: number };
  trusted_proxies: string[];
  mode: string;
}
