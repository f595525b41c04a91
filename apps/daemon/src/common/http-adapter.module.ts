import { Global, Module } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

import { HTTP_ADAPTER_HOST } from './inject-http-adapter-host';

@Global()
@Module({
  providers: [{ provide: HTTP_ADAPTER_HOST, useExisting: HttpAdapterHost }],
  exports: [HTTP_ADAPTER_HOST],
})
export class HttpAdapterModule {}
