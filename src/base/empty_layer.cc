// Placeholder translation unit for a layer folder that has no sources yet.
namespace ccmpi {}
