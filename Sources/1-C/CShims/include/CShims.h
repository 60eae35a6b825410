// Thin pass-throughs for the C APIs Swift cannot call: variadic functions, function-like macros and
// the typed OpenSSL stack helpers. No logic lives here; every symbol carries the `cshim_` prefix.
#ifndef ATTESTGATE_CSHIMS_H
#define ATTESTGATE_CSHIMS_H

#include <curl/curl.h>
#include <openssl/crypto.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>
#include <stddef.h>

// MARK: libcurl (curl_easy_setopt / curl_easy_getinfo are variadic)
CURLcode cshim_curl_setopt_long(CURL *_Nonnull handle, CURLoption option, long value);
CURLcode cshim_curl_setopt_ptr(CURL *_Nonnull handle, CURLoption option, const void *_Nullable value);
CURLcode cshim_curl_setopt_off_t(CURL *_Nonnull handle, CURLoption option, curl_off_t value);
typedef size_t (*cshim_curl_data_cb)(char *_Nonnull ptr, size_t size, size_t nmemb, void *_Nullable userdata);
CURLcode cshim_curl_setopt_write_cb(CURL *_Nonnull handle, cshim_curl_data_cb _Nonnull callback);
CURLcode cshim_curl_setopt_header_cb(CURL *_Nonnull handle, cshim_curl_data_cb _Nonnull callback);
typedef int (*cshim_curl_xferinfo_cb)(
    void *_Nullable userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
CURLcode cshim_curl_setopt_xferinfo_cb(CURL *_Nonnull handle, cshim_curl_xferinfo_cb _Nonnull callback);
// Streaming uploads: the body comes from a read callback (chunked), trailers from a trailer callback.
CURLcode cshim_curl_setopt_read_cb(CURL *_Nonnull handle, cshim_curl_data_cb _Nonnull callback);
typedef int (*cshim_curl_trailer_cb)(struct curl_slist *_Nullable *_Nonnull list, void *_Nullable userdata);
CURLcode cshim_curl_setopt_trailer_cb(CURL *_Nonnull handle, cshim_curl_trailer_cb _Nonnull callback);
// CURLOPT_PREREQFUNCTION: called once the connection is ready, just before the request is sent.
typedef int (*cshim_curl_prereq_cb)(void *_Nullable clientp, char *_Nonnull primary_ip, char *_Nonnull local_ip,
    int primary_port, int local_port);
CURLcode cshim_curl_setopt_prereq_cb(CURL *_Nonnull handle, cshim_curl_prereq_cb _Nonnull callback);
CURLcode cshim_curl_getinfo_long(CURL *_Nonnull handle, CURLINFO info, long *_Nonnull value);
CURLcode cshim_curl_getinfo_off_t(CURL *_Nonnull handle, CURLINFO info, curl_off_t *_Nonnull value);
CURLcode cshim_curl_getinfo_ptr(CURL *_Nonnull handle, CURLINFO info, char *_Nullable *_Nonnull value);
curl_version_info_data *_Nonnull cshim_curl_version_info_now(void);

// MARK: OpenSSL's process-wide initialisation, before curl_global_init (docs/performance-archive.md, "Init path")
// OPENSSL_init_ssl with OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS: the two one-time
// steps it names are settled as "not done", so curl_global_init's own OPENSSL_init_ssl(LOAD_CONFIG) and the
// first error queue of each thread no longer read openssl.cnf or load the error reason strings. Returns 1 on
// success, as OPENSSL_init_ssl does.
int cshim_openssl_init_without_config(void);

// MARK: glibc's malloc (malloc.h is not part of Swift's Glibc module)
// mallopt(M_ARENA_MAX, arenas): at most `arenas` malloc arenas for the process. Returns 1 on success.
int cshim_malloc_set_arena_max(int arenas);

// MARK: OpenSSL macros and typed stacks
void cshim_OPENSSL_free(void *_Nullable ptr);
STACK_OF(X509) *_Nullable cshim_sk_X509_new_null(void);
int cshim_sk_X509_push(STACK_OF(X509) *_Nonnull stack, X509 *_Nonnull cert);
void cshim_sk_X509_pop_free(STACK_OF(X509) *_Nullable stack);
int cshim_sk_X509_num(const STACK_OF(X509) *_Nullable stack);
X509 *_Nullable cshim_sk_X509_value(const STACK_OF(X509) *_Nonnull stack, int index);

// MARK: typed stacks used by App Attest (X.509 EKU lists, PKCS#7 signers)
void cshim_sk_X509_free(STACK_OF(X509) *_Nullable stack);
int cshim_sk_ASN1_OBJECT_num(const STACK_OF(ASN1_OBJECT) *_Nullable stack);
ASN1_OBJECT *_Nullable cshim_sk_ASN1_OBJECT_value(const STACK_OF(ASN1_OBJECT) *_Nonnull stack, int index);
void cshim_sk_ASN1_OBJECT_pop_free(STACK_OF(ASN1_OBJECT) *_Nullable stack);
STACK_OF(X509) *_Nullable cshim_PKCS7_signed_certs(PKCS7 *_Nonnull p7);

#endif
