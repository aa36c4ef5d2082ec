/// Live data for local readers (contract §7): the metrics socket's NDJSON envelopes, the
/// payloads in them, and the server that fans them out. The daemon publishes through it, and
/// so does `replay --publish`, so an integrator developing against a replayed capture reads
/// exactly what a live gym sends.
///
/// **Main types.**
/// - ``LivePublisher`` is what the daemon (and replay) tells readers: `machine`, `sample`,
///   `status`, `session_state`, `session_summary`, `upload`, `control`, in the payloads of
///   ``MetricsPayloads``. With `[mqtt]` on it hands the same envelope bytes to an
///   ``EnvelopeForwarder`` (the daemon's MQTT publisher): a protocol, so that this module, which
///   the dashboard and the CLI link, links no libmosquitto.
/// - ``MetricsServer`` is the socket: an actor whose executor is the event loop its readers'
///   channels live on, so a publish from that loop reaches every reader with no hop and no
///   lock. It numbers every message daemon-wide (`seq`), keeps what a new reader needs to
///   catch up (the latest `machine` and open `session_state` of each machine), and answers each
///   reader's one request, `watch`, a filter of machines and types.
/// - The envelope (type, machine, session id, timestamp, `seq`, version, payload, keys in one
///   fixed order) and ``JSONPayload``, a payload's bytes checked once on the caller's side.
/// - ``ReaderLimits``: how far behind one reader may fall before it loses samples, and before
///   it is closed.
///
/// **Invariants.**
/// - *No reader can slow the daemon or another reader.* Each reader's backlog is counted in
///   bytes; past the soft limit it loses `sample` messages (it sees a `seq` gap) and keeps every
///   other type, past the hard limit it is closed.
/// - *A message is encoded once, and only if someone reads it.* A `sample` or `status` that no
///   reader watches and MQTT does not forward takes its `seq` and nothing else; otherwise its
///   payload is written by `JSONBuffer` straight into the one line every reader shares.
/// - *One bad payload cannot break the framing.* Bytes from elsewhere are parsed when the payload
///   is made; the daemon's own, written by `JSONBuffer`, cannot hold a newline or invalid JSON.
/// - *Live data is best-effort.* A publish that fails is not the caller's error: the store, not
///   the socket, is what must not lose.
///
/// docs/metrics-socket.md is the readers' reference.
enum PublishModule {}
