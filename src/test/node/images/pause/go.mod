// The local node's sandbox ("pause") image's one binary. Nothing here is shipped.
module steward.io/node/pause

go 1.26.0
