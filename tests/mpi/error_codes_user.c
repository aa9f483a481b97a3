/* User error classes and codes (MPI-4.0 sections 9.4-9.5): predefined classes lie in
 * (0, MPI_ERR_LASTCODE]; MPI_LASTUSEDCODE is at least MPI_ERR_LASTCODE and follows
 * MPI_Add_error_class/code, whose values lie above MPI_ERR_LASTCODE; the string of a new
 * class or code is empty until MPI_Add_error_string sets it. */
#include <string.h>

#include "check.h"

static int last_used(void) {
  int* v = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
  CHECK(flag && v, "MPI_LASTUSEDCODE is not set");
  return *v;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CHECK(MPI_ERR_ERRHANDLER <= MPI_ERR_LASTCODE && MPI_ERR_UNSUPPORTED_OPERATION <= MPI_ERR_LASTCODE,
        "a predefined class is above MPI_ERR_LASTCODE");
  CHECK(last_used() >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d < MPI_ERR_LASTCODE %d", last_used(),
        MPI_ERR_LASTCODE);

  char text[MPI_MAX_ERROR_STRING];
  int len = -1, cls = -1, code = -1, out = -1;
  CHECK_MPI(MPI_Add_error_class(&cls));
  CHECK(cls > MPI_ERR_LASTCODE && cls <= last_used(), "class %d outside (%d, %d]", cls,
        MPI_ERR_LASTCODE, last_used());
  CHECK_MPI(MPI_Error_class(cls, &out));
  CHECK(out == cls, "the class of class %d is %d", cls, out);
  strcpy(text, "junk");
  CHECK_MPI(MPI_Error_string(cls, text, &len));
  CHECK(len == 0 && text[0] == '\0', "a new class's string is \"%s\"", text);

  CHECK_MPI(MPI_Add_error_code(cls, &code));
  CHECK(code > MPI_ERR_LASTCODE && code <= last_used(), "code %d outside (%d, %d]", code,
        MPI_ERR_LASTCODE, last_used());
  CHECK_MPI(MPI_Error_class(code, &out));
  CHECK(out == cls, "the class of code %d is %d, not %d", code, out, cls);
  strcpy(text, "junk");
  CHECK_MPI(MPI_Error_string(code, text, &len));
  CHECK(len == 0 && text[0] == '\0', "a new code's string is \"%s\"", text);
  CHECK_MPI(MPI_Add_error_string(code, "my code"));
  CHECK_MPI(MPI_Error_string(code, text, &len));
  CHECK(strcmp(text, "my code") == 0 && len == 7, "code string \"%s\"", text);
  CHECK_MPI(MPI_Add_error_string(cls, "my class"));
  CHECK_MPI(MPI_Error_string(cls, text, &len));
  CHECK(strcmp(text, "my class") == 0, "class string \"%s\"", text);

  /* A code in a predefined class. */
  CHECK_MPI(MPI_Add_error_code(MPI_ERR_ARG, &code));
  CHECK(code > MPI_ERR_LASTCODE && code <= last_used(), "code %d outside (%d, %d]", code,
        MPI_ERR_LASTCODE, last_used());
  CHECK_MPI(MPI_Error_class(code, &out));
  CHECK(out == MPI_ERR_ARG, "the class of code %d is %d", code, out);
  CHECK_MPI(MPI_Error_string(code, text, &len));
  CHECK(len == 0, "a new code's string is \"%s\"", text);

  /* MPI_ERR_LASTCODE itself is no class here, and the predefined strings stay. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Error_class(MPI_ERR_LASTCODE, &out) != MPI_SUCCESS,
        "MPI_ERR_LASTCODE is accepted as an error code");
  CHECK_MPI(MPI_Error_string(MPI_ERR_ARG, text, &len));
  CHECK(len > 0, "MPI_ERR_ARG has no string");
  test_pass("error_codes_user");
  MPI_Finalize();
  return 0;
}
