{
  # One addon target. The DSP sources are listed once, in
  # native/dsp/sources.txt, which CMakeLists.txt reads too. KissFFT,
  # libebur128 and libsoxr come from the system, found with pkg-config.
  "variables": {
    "trackscan_pkgs": "kissfft-float libebur128 soxr"
  },
  "targets": [
    {
      "target_name": "trackscan",
      "sources": [
        "<!@(cat native/dsp/sources.txt)",
        "native/addon/addon.cc",
        "native/addon/analyzer_wrap.cc",
        "native/addon/errors.cc",
        "native/addon/workers.cc"
      ],
      "dependencies": [
        "<!(node -p \"require('node-addon-api').targets\"):node_addon_api_except"
      ],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["<!@(pkg-config --cflags <(trackscan_pkgs))"],
      # -fno-math-errno: nothing reads errno, and it lets sqrt() vectorise
      # (see CMakeLists.txt).
      "cflags_cc": ["-std=c++17", "-O3", "-fno-math-errno"],
      "cflags_cc!": ["-std=gnu++17"],
      "libraries": ["<!@(pkg-config --libs <(trackscan_pkgs))"],
      "conditions": [
        ["OS=='linux'", {
          # Prebuilds carry the three shared libraries beside the addon.
          "ldflags": ["-Wl,-rpath,'$$ORIGIN'"]
        }],
        ["OS=='mac'", {
          "xcode_settings": {
            "OTHER_CFLAGS": ["<!@(pkg-config --cflags <(trackscan_pkgs))"],
            "OTHER_LDFLAGS": ["-Wl,-rpath,@loader_path"],
            "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
            "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
            "MACOSX_DEPLOYMENT_TARGET": "11.0"
          }
        }]
      ]
    }
  ]
}
