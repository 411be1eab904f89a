/*
 * errors.h - the Kafka protocol errors ksim models: code, name,
 * the exception a Java client raises for it, and whether the client may
 * retry it; and the protocol APIs its requests use.
 *
 * Owns: one X-macro table ([K] clients/src/main/java/org/apache/kafka/
 * common/protocol/Errors.java; retriable = the exception extends
 * RetriableException). Scenario files name errors by their Kafka name
 * (faults of type "append.error").
 * MESSAGE_TOO_LARGE (10) is what a leader answers for a batch larger than
 * the topic's max.message.bytes ([K] Errors.java: MESSAGE_TOO_LARGE(10,
 * ..., RecordTooLargeException::new); RecordTooLargeException extends
 * ApiException, not RetriableException).
 */
#ifndef KS_KAFKA_ERRORS_H
#define KS_KAFKA_ERRORS_H

#include <stdbool.h>
#include <stdint.h>

/* X(ENUM, code, "NAME", "ExceptionClass", retriable, injectable)
 * injectable: a scenario may make a leader answer a produce batch with it. */
#define KS_KAFKA_ERRORS(X)                                                                  \
    X(NONE, 0, "NONE", NULL, false, false)                                                  \
    X(UNKNOWN_SERVER_ERROR, -1, "UNKNOWN_SERVER_ERROR", "UnknownServerException", false, true) \
    X(CORRUPT_MESSAGE, 2, "CORRUPT_MESSAGE", "CorruptRecordException", true, true)          \
    X(UNKNOWN_TOPIC_OR_PARTITION, 3, "UNKNOWN_TOPIC_OR_PARTITION",                          \
      "UnknownTopicOrPartitionException", true, true)                                       \
    X(NOT_LEADER_OR_FOLLOWER, 6, "NOT_LEADER_OR_FOLLOWER", "NotLeaderOrFollowerException", true, true) \
    X(REQUEST_TIMED_OUT, 7, "REQUEST_TIMED_OUT", "TimeoutException", true, true)            \
    X(MESSAGE_TOO_LARGE, 10, "MESSAGE_TOO_LARGE", "RecordTooLargeException", false, true)   \
    X(COORDINATOR_NOT_AVAILABLE, 15, "COORDINATOR_NOT_AVAILABLE",                           \
      "CoordinatorNotAvailableException", true, false)                                      \
    X(NOT_COORDINATOR, 16, "NOT_COORDINATOR", "NotCoordinatorException", true, false)       \
    X(NETWORK_EXCEPTION, 13, "NETWORK_EXCEPTION", "NetworkException", true, false)          \
    X(RECORD_LIST_TOO_LARGE, 18, "RECORD_LIST_TOO_LARGE", "RecordBatchTooLargeException", false, true) \
    X(NOT_ENOUGH_REPLICAS, 19, "NOT_ENOUGH_REPLICAS", "NotEnoughReplicasException", true, true) \
    X(NOT_ENOUGH_REPLICAS_AFTER_APPEND, 20, "NOT_ENOUGH_REPLICAS_AFTER_APPEND",             \
      "NotEnoughReplicasAfterAppendException", true, true)                                  \
    X(TOPIC_AUTHORIZATION_FAILED, 29, "TOPIC_AUTHORIZATION_FAILED",                         \
      "TopicAuthorizationException", false, true)                                           \
    X(OUT_OF_ORDER_SEQUENCE_NUMBER, 45, "OUT_OF_ORDER_SEQUENCE_NUMBER",                     \
      "OutOfOrderSequenceException", false, false)                                          \
    X(INVALID_PRODUCER_EPOCH, 47, "INVALID_PRODUCER_EPOCH", "InvalidProducerEpochException", false, false) \
    X(INVALID_TXN_STATE, 48, "INVALID_TXN_STATE", "InvalidTxnStateException", false, false) \
    X(INVALID_PRODUCER_ID_MAPPING, 49, "INVALID_PRODUCER_ID_MAPPING",                       \
      "InvalidPidMappingException", false, false)                                           \
    X(INVALID_TRANSACTION_TIMEOUT, 50, "INVALID_TRANSACTION_TIMEOUT",                       \
      "InvalidTxnTimeoutException", false, false)                                          \
    X(CONCURRENT_TRANSACTIONS, 51, "CONCURRENT_TRANSACTIONS", "ConcurrentTransactionsException", true, false) \
    X(TRANSACTION_COORDINATOR_FENCED, 52, "TRANSACTION_COORDINATOR_FENCED",                 \
      "TransactionCoordinatorFencedException", false, false)                                \
    X(KAFKA_STORAGE_ERROR, 56, "KAFKA_STORAGE_ERROR", "KafkaStorageException", true, true)  \
    X(UNKNOWN_PRODUCER_ID, 59, "UNKNOWN_PRODUCER_ID", "UnknownProducerIdException", false, false) \
    X(INVALID_RECORD, 87, "INVALID_RECORD", "InvalidRecordException", false, true)        \
    X(UNSTABLE_OFFSET_COMMIT, 88, "UNSTABLE_OFFSET_COMMIT", "UnstableOffsetCommitException", true, \
      false)                                                                                \
    X(PRODUCER_FENCED, 90, "PRODUCER_FENCED", "ProducerFencedException", false, false)  \
    X(TRANSACTION_ABORTABLE, 120, "TRANSACTION_ABORTABLE", "TransactionAbortableException", false, false)

typedef enum ks_kerr {
#define X(e, code, name, exc, retriable, injectable) KS_KERR_##e,
    KS_KAFKA_ERRORS(X)
#undef X
    KS_KERR__COUNT
} ks_kerr;

int16_t ks_kerr_code(ks_kerr e);
const char *ks_kerr_name(ks_kerr e);
/* The Java exception's simple name; NULL for NONE. */
const char *ks_kerr_exception(ks_kerr e);
bool ks_kerr_retriable(ks_kerr e);
bool ks_kerr_injectable(ks_kerr e);
/* Does the error say the client's metadata is stale: its exception
 * extends InvalidMetadataException ([K] NotLeaderOrFollowerException,
 * UnknownTopicOrPartitionException, KafkaStorageException)? */
bool ks_kerr_invalid_metadata(ks_kerr e);
/* By name; false if unknown. */
bool ks_kerr_find(const char *name, ks_kerr *out);

/* The Kafka APIs ksim's requests use: X(ENUM, "Name", api key)
 * ([K] clients/.../common/protocol/ApiKeys.java). */
#define KS_APIS(X)                                   \
    X(PRODUCE, "Produce", 0)                         \
    X(INIT_PRODUCER_ID, "InitProducerId", 22)        \
    X(FIND_COORDINATOR, "FindCoordinator", 10)       \
    X(ADD_PARTITIONS_TO_TXN, "AddPartitionsToTxn", 24) \
    X(END_TXN, "EndTxn", 26)                         \
    X(WRITE_TXN_MARKERS, "WriteTxnMarkers", 27)      \
    X(FETCH, "Fetch", 1)                             \
    X(LIST_OFFSETS, "ListOffsets", 2)                \
    X(METADATA, "Metadata", 3)                       \
    X(OFFSET_COMMIT, "OffsetCommit", 8)              \
    X(OFFSET_FETCH, "OffsetFetch", 9)                \
    X(ADD_OFFSETS_TO_TXN, "AddOffsetsToTxn", 25)     \
    X(TXN_OFFSET_COMMIT, "TxnOffsetCommit", 28)

typedef enum ks_api {
#define X(e, name, key) KS_API_##e,
    KS_APIS(X)
#undef X
    KS_API__COUNT
} ks_api;

const char *ks_api_name(ks_api a);
/* By name; false if unknown. */
bool ks_api_find(const char *name, ks_api *out);

#endif
