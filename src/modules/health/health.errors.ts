/** Error texts of the health module. */
export const METRICS_TOKEN_REQUIRED =
  'The Prometheus metrics need Authorization: Bearer <METRICS_TOKEN> (set on this service)';
