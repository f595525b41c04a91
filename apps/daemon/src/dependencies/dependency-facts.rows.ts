// Shared with the frontier's repository, which reads them for a whole project at once.

export interface DeliveryRunRow {
  item_id: number;
  environment: string;
  status: string;
}

export interface EnvironmentFactRow {
  project: string;
  name: string;
  in_flow: boolean;
}
