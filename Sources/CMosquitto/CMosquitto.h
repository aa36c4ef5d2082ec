// The C surface of libmosquitto (Debian's libmosquitto-dev) that the Swift MQTT module uses,
// plus what Swift cannot import by itself: eventfd and prctl (variadic), for waking and naming
// the MQTT thread, as CDBus does for the bus thread.
#ifndef CMOSQUITTO_H
#define CMOSQUITTO_H

#include <mosquitto.h>
#include <sys/eventfd.h>
#include <poll.h>
#include <sys/prctl.h>

/// Names the calling thread (at most 15 bytes are kept), as `top -H` and /proc show it.
static inline int cmosquitto_name_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

#endif
