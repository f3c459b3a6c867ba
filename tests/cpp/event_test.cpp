// Events on the cpu (complete when recorded) and their handle checks; the CUDA side is in
// gpu/runtime_test.cpp.
#include "common/ndrt_test.hpp"

namespace {

TEST(Events, CpuEventsAreCompleteWhenRecorded) {
  ndrt_event e = 0;
  ASSERT_OK(ndrt_event_record(NDRT_CPU, &e));
  EXPECT_NE(e, 0);
  int32_t done = -1;
  ASSERT_OK(ndrt_event_query(e, &done));
  EXPECT_EQ(done, 1);
  EXPECT_OK(ndrt_event_wait(e, NDRT_CPU));
  EXPECT_OK(ndrt_event_wait(e, NDRT_DEVICE_CURRENT));
  EXPECT_OK(ndrt_event_synchronize(e));
  ASSERT_OK(ndrt_event_release(e));
}

TEST(Events, ReleasedAndInventedEventsAreInvalidHandles) {
  ndrt_event e = 0;
  ASSERT_OK(ndrt_event_record(NDRT_CPU, &e));
  ASSERT_OK(ndrt_event_release(e));
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_event_release(e));
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_event_synchronize(e));
  int32_t done = 0;
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_event_query(e, &done));
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_event_wait(e, NDRT_CPU));
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_event_release(0));
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_event_synchronize(123456789));
}

TEST(Events, BadArgumentsAreReported) {
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_event_record(NDRT_CPU, nullptr));
  ndrt_event e = 0;
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_event_record(NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 7), &e));
  EXPECT_EQ(e, 0);
  ASSERT_OK(ndrt_event_record(NDRT_CPU, &e));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_event_query(e, nullptr));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_event_wait(e, NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, 99)));
  ASSERT_OK(ndrt_event_release(e));
}

}  // namespace
