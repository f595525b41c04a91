import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum EventsErrorCode {
  EventStreamLimitReached = 'event_stream_limit_reached',
  // a stream needs an active membership (server admins excepted)
  OrganizationMembershipRequired = 'organization_membership_required',
}

export const EVENTS_ERROR_STATUS: ErrorStatusTable<EventsErrorCode> = {
  [EventsErrorCode.EventStreamLimitReached]: HttpStatus.TOO_MANY_REQUESTS,
  [EventsErrorCode.OrganizationMembershipRequired]: HttpStatus.FORBIDDEN,
};

const eventsError = errorFactory(EVENTS_ERROR_STATUS);

export const streamLimitReached = (who: 'actor' | 'address', limit: number, retryAfter: number) =>
  eventsError(
    EventsErrorCode.EventStreamLimitReached,
    `at most ${limit} event streams may be open at once for this ${who === 'actor' ? 'actor' : 'client address'}; close one or retry in ${retryAfter} s`,
    { limit },
    { 'retry-after': String(retryAfter) },
  );

export const streamMembershipRequired = () =>
  eventsError(
    EventsErrorCode.OrganizationMembershipRequired,
    'an event stream needs an active membership of an organization; ask an organization admin to add you',
  );
