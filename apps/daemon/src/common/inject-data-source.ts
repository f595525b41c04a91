import { Inject } from '@nestjs/common';

// The application's DataSource under a token of the daemon's own (DatabaseModule provides it as TypeORM's): a
// provider injected through @nestjs/typeorm's InjectDataSource, or by the DataSource class, loads typeorm,
// @nestjs/typeorm and @nestjs/core at runtime, and every unit spec that loads that provider pays for them. With this
// token a repository imports typeorm for its types only (`import type`).
export const DATA_SOURCE = Symbol('DATA_SOURCE');

export const InjectDataSource = (): ParameterDecorator => Inject(DATA_SOURCE);
