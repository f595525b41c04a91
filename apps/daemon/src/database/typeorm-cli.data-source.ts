import { DataSource } from 'typeorm';

import { parseConfig } from '../config/config';
import { dataSourceOptions } from './data-source';

export default new DataSource(dataSourceOptions(parseConfig().databaseUrl ?? 'postgres://postgres@127.0.0.1:5432/svc'));
