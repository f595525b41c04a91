import { Inject } from '@nestjs/common';

// Nest's HttpAdapterHost under a token of the daemon's own (HttpAdapterModule provides it as Nest's): injected by its
// class, it loads @nestjs/core at runtime, and every unit spec that loads the provider pays for it. With this token a
// provider imports HttpAdapterHost for its type only (`import type`).
export const HTTP_ADAPTER_HOST = Symbol('HTTP_ADAPTER_HOST');

export const InjectHttpAdapterHost = (): ParameterDecorator => Inject(HTTP_ADAPTER_HOST);
