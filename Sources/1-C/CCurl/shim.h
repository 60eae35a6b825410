#ifndef ATTESTGATE_CCURL_SHIM_H
#define ATTESTGATE_CCURL_SHIM_H
#include <curl/curl.h>
#endif
