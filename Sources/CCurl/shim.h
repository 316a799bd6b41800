#ifndef RANGERS_CCURL_SHIM_H
#define RANGERS_CCURL_SHIM_H
#include <curl/curl.h>
#endif
