// Declarations only, for %import: classes that ITK's PyPI wheels wrap in the
// Python module itk.ITKCommonBasePython. SWIG emits no wrapper code for them;
// it only learns their type names (_p_itkLightObject, ...), which the wheels
// registered in SWIG's runtime type table, and where our classes derive from.
%module(package="itk") ITKCommonBasePython

class itkLightObject {};
class itkObject : public itkLightObject {};
class itkDataObject : public itkObject {};
class itkProcessObject : public itkObject {};
