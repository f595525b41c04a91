import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'svc:isPublic';

export const Public = () => SetMetadata(IS_PUBLIC, true);

// Every other route refuses a metrics-only token with 403.
export const METRICS_SCOPE = 'svc:metricsScope';
export const MetricsScope = () => SetMetadata(METRICS_SCOPE, true);
