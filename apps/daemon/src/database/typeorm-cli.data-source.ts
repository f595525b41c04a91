import { DataSource } from 'typeorm';

import { parseConfig } from '../config/config';
import { dataSourceOptions } from './data-source';

// The TypeORM CLI entry: `npm run typeorm -- migration:show` against SVC_DATABASE_URL.
export default new DataSource(dataSourceOptions(parseConfig().databaseUrl ?? 'postgres://postgres@127.0.0.1:5432/svc'));
