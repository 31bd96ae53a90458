// A test pod's program for the local node (standard library only). Nothing here is shipped.
module steward.io/node/probe

go 1.26.0
