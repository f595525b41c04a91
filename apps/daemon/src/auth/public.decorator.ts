import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'svc:isPublic';

// Routes that answer without a bearer token: health, the device-code endpoints, the approval page.
export const Public = () => SetMetadata(IS_PUBLIC, true);

// A route a metrics-only API token (scope metrics) may call: GET /metrics. Every other route refuses it with 403.
export const METRICS_SCOPE = 'svc:metricsScope';
export const MetricsScope = () => SetMetadata(METRICS_SCOPE, true);
