/// The gateway's side of the SolidFocus account (contract §6): login, tokens, the upload of
/// finished sessions, the stats and the trainings, over HTTPS to the backend.
///
/// **Main types.** ``SyncService`` composes the pieces once (the store, the backend client, the
/// token authority, the batch procedure): the daemon makes one for its lifetime, each
/// `ftms-bridge` command (`login`, `logout`, `upload`) one for its run.
/// - ``BackendClient`` is the backend's routes as typed calls. It is stateless (tokens come in
///   per call), logs nothing, and puts codes and messages in its errors, never a token. Its
///   calls go through an ``HTTPTransport``: AsyncHTTPClient in the product
///   (``AsyncHTTPTransport``, which bounds the whole exchange, not only the answer's head), a
///   scripted one in the tests.
/// - ``TokenAuthority`` hands each call a valid access token and runs one refresh at a time,
///   because the backend rotates refresh tokens and takes a second use of an old one for theft.
///   The rotated pair is stored before any call uses it.
/// - ``BatchUploadProcedure`` is SolidFocus's Batch Upload Procedure: pending sessions oldest
///   first, 20 to a call; accepted and duplicates marked uploaded, refusals counted by
///   ``RejectionPolicy`` until they go to dead-letter; then the stats compared and the gateway's
///   sent when they differ.
/// - ``UploadScheduler`` decides when the daemon uploads: at start-up, after every finished
///   session, on an operator's `upload`, and after a failed run on ``RetryPolicy``'s capped,
///   fully jittered backoff, honouring `Retry-After`.
/// - ``BackendDateSample`` is what an answer's `Date` header says about the gateway's clock
///   (contract §5), for the daemon's judge of true time.
///
/// **Invariants.**
/// - *A session is marked only after the backend's answer*, one transaction per batch: a crash
///   in between sends the batch again, and the backend reports duplicates. Delivery is at least
///   once; the session ids make it exactly once.
/// - *A failure never loses a session.* A call that fails leaves its batch pending; a login
///   problem, a 429 or a `Retry-After` ends the run; so do calls in a row that got no answer
///   (the backend is down). A refresh the backend rejects deletes the tokens and keeps every
///   session, and the store says "login required" and why.
/// - *Nothing secret is printed.* Requests and errors describe themselves without the bearer
///   token or a body that may carry one.
///
/// The store it writes to is `Store`'s (docs/sync.md); docs/backend-api.md is the wire.
enum UploadModule {}
