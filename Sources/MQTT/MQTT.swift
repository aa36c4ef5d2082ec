/// An MQTT client over Debian's libmosquitto (a system library, like libdbus for the DBus
/// module): no MQTT protocol code is written here, only the parts libmosquitto leaves to its
/// caller.
///
/// **A thread-owning class, not an actor.** ``MQTTClient`` owns one thread (`mqtt-loop`,
/// ``MQTTLoop``) that makes every libmosquitto call, exactly as the DBus binding's `BusLoop`
/// does for libdbus. libmosquitto is a blocking C library with its own notion of threads
/// (`mosquitto_loop_start`, or a caller that polls its socket); its calls must not run on
/// the daemon's one NIO event loop, which also carries Swift Concurrency: `getaddrinfo` and a
/// TLS handshake block, and a broker that stops reading would stall every socket and timer of
/// the gateway. An actor would run on that same executor. So the thread polls libmosquitto's
/// socket plus an eventfd, calls `mosquitto_loop_read/write/misc` itself, and other threads
/// only put messages in a locked queue and wake it. libmosquitto's own thread
/// (`mosquitto_loop_start`) is not used because its reconnect has no jitter and no hook
/// for re-sending our unacknowledged messages on a new connection.
///
/// What the client adds to libmosquitto, because the gateway needs it and the library does
/// not do it:
/// - **Reconnect forever**, with RetryTiming's ``Backoff`` (bounded, equal jitter), from the
///   first start on: a broker that is down when the daemon starts is not an error.
/// - **A bounded outgoing queue** (``OutgoingQueue``) that callers fill without ever waiting.
///   When it is full, QoS 0 messages (live samples, superseded a second later) are dropped
///   first; a retained message replaces a queued one on the same topic (latest wins). QoS 1
///   messages stay queued until the broker's PUBACK, and are sent again on the next
///   connection if it never came (at least once, across broker restarts).
/// - **Retained state re-published on every connect**, so a broker restarted without
///   persistence shows the gateway's state again as soon as it is back.
/// - **Status**: connection state, last error (one line, e.g. the broker's refusal of a
///   login), counters, and an event stream for logging and metrics.
/// - **Subscriptions** as `AsyncStream`s, renewed on every connection.
///
/// Each connection uses a fresh `struct mosquitto` (MQTT 3.1.1): what must survive a
/// connection lives in the Swift queue, not in libmosquitto's.
public enum MQTTBinding {}
