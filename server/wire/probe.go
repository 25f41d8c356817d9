package wire

// HeaderProbe marks a request as a health check, such as a gateway's GET
// /v1/models of its workers: a server logs it at debug level, as it does
// GET /healthz and /readyz, so that checks every second do not fill its
// log. Its value names the checker.
const HeaderProbe = "X-Voxkit-Probe"
