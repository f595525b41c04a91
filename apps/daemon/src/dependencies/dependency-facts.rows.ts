// The rows behind the deployment facts a dependency's satisfaction reads (fact:deployed:<env>): read by this
// feature's repository and, for a whole project at once, by the frontier's.

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
