import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'svc:isPublic';

// Routes that answer without a bearer token: health, the device-code endpoints, the approval page.
export const Public = () => SetMetadata(IS_PUBLIC, true);
