#ifndef FLEETMESH_CAVAHI_SHIM_H
#define FLEETMESH_CAVAHI_SHIM_H
// The parts of libavahi-client FleetMesh uses: a client on a threaded poll, entry groups, browsers, resolvers.
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/address.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#endif
